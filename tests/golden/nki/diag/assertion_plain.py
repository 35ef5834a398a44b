size = 3
assert size % 2 == 0
