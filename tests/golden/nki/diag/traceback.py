def tile_count(n):
    return n // 0


def plan(n):
    return tile_count(n) + 1


def kernel():
    return plan(4)


kernel()
