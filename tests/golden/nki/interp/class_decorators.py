# Helper classes of kernel files with @staticmethod, @classmethod and @property (a tile config),
# and dict equality; prints what CPython prints.
class TileConfig:
    pmax = 128

    def __init__(self, rows, cols):
        self.rows = rows
        self.cols = cols

    @property
    def row_tiles(self):
        return (self.rows + self.pmax - 1) // self.pmax

    @staticmethod
    def ceil_div(a, b):
        return -(-a // b)

    @classmethod
    def square(cls, n):
        return cls(n, n)


class Wide(TileConfig):
    pmax = 64


c = TileConfig(300, 512)
print(c.row_tiles, TileConfig.ceil_div(300, 128), c.ceil_div(7, 2))
s = TileConfig.square(256)
print(s.rows, s.cols, s.row_tiles, Wide.square(200).row_tiles, isinstance(Wide.square(1), Wide))
print({"a": 1, "b": (2, 3)} == {"b": (2, 3), "a": 1}, {"a": 1} == {"a": 2}, {"a": 1} != {"a": 1, "b": 2})
