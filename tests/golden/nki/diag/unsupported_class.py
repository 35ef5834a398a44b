class Tile:
    pass
