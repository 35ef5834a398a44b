with open('weights.bin') as fh:
    pass
