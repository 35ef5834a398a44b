def f():
    return globals()


f()
