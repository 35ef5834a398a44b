# Legacy API, HBM tensors reshaped into column-tile views and a tile width kept in the kernel's own
# constant: the nest of rope_halves_tiles.py, x (D, S), cos / sin (D / 2, S), (64, 512) tiles. The
# width sizes the views (`x.reshape((d_size, seq // width, width))`), so the loop has no tile_size
# site; free_size changes `width`, and fill_partitions widens through it (session 37).
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x, cos, sin):
    d_size, seq = x.shape
    half = d_size // 2
    width = 512
    blocks = seq // width
    out = nl.ndarray((d_size, seq), dtype=x.dtype, buffer=nl.shared_hbm)
    x_blk = x.reshape((d_size, blocks, width))
    cos_blk = cos.reshape((half, blocks, width))
    sin_blk = sin.reshape((half, blocks, width))
    out_blk = out.reshape((d_size, blocks, width))
    for b in nl.affine_range(blocks):
        lo = nl.load(x_blk[0:half, b, :])
        hi = nl.load(x_blk[half:d_size, b, :])
        c = nl.load(cos_blk[:, b, :])
        s = nl.load(sin_blk[:, b, :])
        nl.store(out_blk[0:half, b, :], value=nl.subtract(nl.multiply(lo, c), nl.multiply(hi, s)))
        nl.store(out_blk[half:d_size, b, :], value=nl.add(nl.multiply(lo, s), nl.multiply(hi, c)))
    return out
