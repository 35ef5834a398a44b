class Tile(metaclass=Meta):
    pass
