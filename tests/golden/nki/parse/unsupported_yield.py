def gen():
    yield 1
