# A first version that stores each 32-row band of a computed tile on its own (four stores per
# tile from slices of the partition dim) and scales by a (P, 1) column loaded inside the band loop.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x, s):
    n, d = x.shape
    out = nl.ndarray((n, d), dtype=x.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(n // 128):
        xt = nl.load(x[i * 128:(i + 1) * 128, :])
        y = nl.sigmoid(xt)
        for r in nl.affine_range(4):
            sc = nl.load(s[i * 128 + r * 32:i * 128 + (r + 1) * 32, :])
            band = y[r * 32:(r + 1) * 32, :] * sc
            nl.store(out[i * 128 + r * 32:i * 128 + (r + 1) * 32, :], value=band)
    return out
