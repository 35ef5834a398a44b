tiles = 0
per_tile = 4096 // tiles
