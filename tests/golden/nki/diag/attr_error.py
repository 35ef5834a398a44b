t = (1, 2)
t.append(3)
