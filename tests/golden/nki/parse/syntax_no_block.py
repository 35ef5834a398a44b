for i in range(3):
x = 1
