if (n := 10) > 5:
    pass
