x = 1
s = 'never closed
