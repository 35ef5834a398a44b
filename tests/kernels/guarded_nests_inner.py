# Legacy API (nl.load / nl.store): guarded_nests_plain.py's two nests, the second loop's body under
# `if K <= 512:` (decided true while tracing). The guard always runs, so the loops fuse, the guard
# moving with the second body.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x, y):
    M, K = x.shape
    out = nl.ndarray((M, K), dtype=x.dtype, buffer=nl.shared_hbm)
    out2 = nl.ndarray((M, K), dtype=x.dtype, buffer=nl.shared_hbm)
    for m in nl.affine_range(M // 128):
        a = nl.load(x[m * 128:(m + 1) * 128, :])
        b = nl.exp(a)
        nl.store(out[m * 128:(m + 1) * 128, :], value=b)
    for m in nl.affine_range(M // 128):
        if K <= 512:
            c = nl.load(y[m * 128:(m + 1) * 128, :])
            d = nl.exp(c)
            nl.store(out2[m * 128:(m + 1) * 128, :], value=d)
    return out, out2
