# A loop walked in blocks with the position bound once per iteration (`t = t_blk * 4 + t_in`, as a
# blocked fusion writes it): a move changing the block size must not leave the binding's old 4.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x):
    R, F = x.shape
    out = nl.ndarray((R, F), dtype=x.dtype, buffer=nl.shared_hbm)
    for t_blk in nl.affine_range(R // 512):
        for t_in in nl.affine_range(4):
            t = t_blk * 4 + t_in
            tile = nl.load(x[t * 128:(t + 1) * 128, :])
            nl.store(out[t * 128:(t + 1) * 128, :], value=nl.multiply(tile, 2.0))
    return out
