def kernel(a):
    return a + undefined_thing


kernel(1)
