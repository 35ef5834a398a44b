def f():
    global x
    x = 1
