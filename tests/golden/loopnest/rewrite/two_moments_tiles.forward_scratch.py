# Bundled style (nl.* calls, tiles named where they are made, sizes from the argument shapes): a
# two-pass moment update at a small size (p, g, a, b all (200, 256)). The first nest writes both
# new moments to private HBM scratch tensors, the second reads both back; 200 rows are one full
# and one ragged 128-row block, so every load and store is masked `rows < M`. forward_scratch must
# forward both tensors at once, here, in two_moments_grid.py and in two_moments_api.py, and keep
# the result.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(p, g, a, b):
    M, N = p.shape
    P = 128
    F = 128
    out = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    ip = nl.arange(P)[:, None]
    jf = nl.arange(F)[None, :]

    # the moments
    for r in nl.affine_range((M + P - 1) // P):
        for c in nl.affine_range(N // F):
            rows = r * P + ip
            cols = c * F + jf
            g_t = nl.load(g[rows, cols], mask=(rows < M))
            a_t = nl.load(a[rows, cols], mask=(rows < M))
            b_t = nl.load(b[rows, cols], mask=(rows < M))
            a_new = nl.add(nl.multiply(a_t, 0.8), nl.multiply(g_t, 0.2))
            b_new = nl.add(nl.multiply(b_t, 0.95), nl.multiply(nl.multiply(g_t, g_t), 0.05))
            rows = r * P + ip
            cols = c * F + jf
            p_t = nl.load(p[rows, cols], mask=(rows < M))
            scale = nl.add(nl.multiply(b_new, b_new), 1.0)
            step = nl.divide(nl.multiply(a_new, 0.1), scale)
            nl.store(out[rows, cols], nl.subtract(p_t, step), mask=(rows < M))
    return out
