def kernel(a, b):
    return a


kernel(1)
