for i in range(3):
    pass
else:
    pass
while cond:
    break
else:
    done = True
tile: nt.tensor[128, 512] = nl.load(a)
count: int
