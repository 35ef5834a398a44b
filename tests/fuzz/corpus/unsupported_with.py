with open('f') as fh:
    pass
