i = 0
while True:
    i += 1
