def f():
    try:
        pass
    except (ValueError, KeyError) as e:
        raise RuntimeError("bad") from e
    except Exception:
        raise
    else:
        x = 1
    finally:
        del x
