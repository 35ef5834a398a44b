# The return annotation is evaluated too (after the parameters').
def scale(x: float, k: int = 2) -> Tile:
    return x * k


print(scale(1.5))
