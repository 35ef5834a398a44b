# Ordering of instances: dataclass(order=True) compares the tuples of the compared fields (only
# with the same class), and a class defining __lt__ sorts (its > is the reflected __lt__).
from dataclasses import dataclass, field


@dataclass(order=True)
class Tile:
    rows: int
    cols: int = 0
    name: str = field(default="", compare=False)


tiles = [Tile(2, 1, "c"), Tile(1, 5, "b"), Tile(1, 2, "a"), Tile(1, 2, "z")]
print(sorted(tiles))
print(Tile(1, 2) < Tile(1, 3), Tile(2, 0) >= Tile(1, 9), Tile(1, 2, "x") <= Tile(1, 2, "y"), Tile(3) > Tile(2, 99))
print(min(tiles), max(tiles))
try:
    Tile(1) < 3
except TypeError as e:
    print("TypeError:", e)


class Version:
    def __init__(self, major, minor):
        self.major = major
        self.minor = minor

    def __lt__(self, other):
        return (self.major, self.minor) < (other.major, other.minor)

    def __repr__(self):
        return f"v{self.major}.{self.minor}"


print(sorted([Version(1, 2), Version(0, 9), Version(1, 0)]), Version(0, 1) < Version(0, 2), Version(2, 0) > Version(1, 0))
