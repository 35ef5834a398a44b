y = nl.load(a[0:128, :]
z = 1
