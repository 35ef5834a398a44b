def f():
    try:
        pass
    except Exception:
        pass
