def check(shape):
    if shape[0] > 128:
        raise ValueError(f"partition dimension {shape[0]} exceeds 128")
    return shape


check((64, 512))
try:
    check((256, 512))
except TypeError:
    print("not reached")
