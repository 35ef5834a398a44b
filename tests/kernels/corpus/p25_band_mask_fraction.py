# The fraction of each row inside a band: two comparisons with constants joined by nl.logical_and
# (a bool tile), counted by nl.sum after nl.copy to float32, and an all-inside flag by nl.all.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def band_fraction(x, lo):
    n, d = x.shape
    frac = nl.ndarray((n, 1), dtype=nl.float32, buffer=nl.shared_hbm)
    every = nl.ndarray((n, 1), dtype=nl.float32, buffer=nl.shared_hbm)
    for r in nl.affine_range(n // 128):
        t = nl.load(x[r * 128:(r + 1) * 128, :])
        u = nl.load(lo[r * 128:(r + 1) * 128, :])
        inside = nl.logical_and(nl.less(t, 1.0), nl.greater_equal(u, -0.5))
        count = nl.sum(nl.copy(inside, dtype=nl.float32), axis=1, keepdims=True)
        nl.store(frac[r * 128:(r + 1) * 128, :], value=nl.multiply(count, 1.0 / d))
        nl.store(every[r * 128:(r + 1) * 128, :], value=nl.copy(nl.all(inside, axis=1, keepdims=True), dtype=nl.float32))
    return frac, every
