def f():
    print(y)
    y = 1


f()
