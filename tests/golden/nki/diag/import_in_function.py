def f():
    from subprocess import run
    return run


f()
