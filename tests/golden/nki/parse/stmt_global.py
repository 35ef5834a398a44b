def f():
    global x, y
    x = 1

    def g():
        nonlocal z
        z = 2
    z = 0
