# Legacy API (nl.load / nl.store): two nests over the same row tiles, exp(x) into out and exp(y)
# into out2, x and y (256, 512): fuse_nests makes them one loop. The guarded_nests_* kernels are
# these nests under compile-time `if`s (tests/unit/loopnest/decided_guard_test.cpp) and offer the
# same sites.
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
        c = nl.load(y[m * 128:(m + 1) * 128, :])
        d = nl.exp(c)
        nl.store(out2[m * 128:(m + 1) * 128, :], value=d)
    return out, out2
