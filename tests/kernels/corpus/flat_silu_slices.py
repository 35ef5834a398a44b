# A flattened tile grid, as authors coming from CUDA write it: one loop over every (row block,
# column block) tile, the coordinates recovered with `//` and `%`, nl.ds column slices, the tile
# sizes as module constants and the loop bound computed from the shape.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl

P_TILE = 128
F_TILE = 256


@nki.jit
def kernel(x):
    rows, cols = x.shape
    assert rows % P_TILE == 0 and cols % F_TILE == 0
    out = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    n_col_tiles = cols // F_TILE
    n_tiles = (rows // P_TILE) * n_col_tiles
    for t in nl.affine_range(n_tiles):
        r = t // n_col_tiles
        c = t % n_col_tiles
        tile = nl.load(x[r * P_TILE:(r + 1) * P_TILE, nl.ds(c * F_TILE, F_TILE)])
        gate = nl.sigmoid(tile)
        y = nl.multiply(tile, gate)
        nl.store(out[r * P_TILE:(r + 1) * P_TILE, nl.ds(c * F_TILE, F_TILE)], value=y)
    return out
