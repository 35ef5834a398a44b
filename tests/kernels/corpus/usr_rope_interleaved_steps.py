# Rotary embedding on interleaved pairs (x[..., 0::2], x[..., 1::2]) as it is written in model
# code ported to NKI: step slices on HBM loads and on stores, Python `range(start, stop, step)`
# over row blocks with a ragged last block trimmed by min(), nl.affine_range(start, stop, step)
# over the head groups, and the rotation with Python operators on tiles.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def rope_interleaved(x, cos, sin):
    S, H, D = x.shape
    half = D // 2
    out = nl.ndarray((S, H, D), dtype=x.dtype, buffer=nl.shared_hbm)
    P = 128
    for r in range(0, S, P):
        n = min(P, S - r)
        c = nl.load(cos[r:r + n, :])
        s = nl.load(sin[r:r + n, :])
        for h in nl.affine_range(0, H, 1):
            even = nl.load(x[r:r + n, h, 0::2])
            odd = nl.load(x[r:r + n, h, 1::2])
            nl.store(out[r:r + n, h, 0:D:2], value=even * c - odd * s)
            nl.store(out[r:r + n, h, 1:D:2], value=even * s + odd * c)
    return out
