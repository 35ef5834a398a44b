import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x, rates):
    """Inverted dropout with a per-row rate tile (nisa.dropout, then 1/(1-rate) scaling where the
    rate is below 1), and a seeded nl.rand check: how many draws per row fall in [0, 1)."""
    N, D = x.shape
    y = nl.ndarray((N, D), dtype=nl.float32, buffer=nl.shared_hbm)
    in_range = nl.ndarray((N, 1), dtype=nl.float32, buffer=nl.shared_hbm)
    nl.random_seed(seed=7)
    for i in nl.affine_range(N // 128):
        rows = nl.ds(i * 128, 128)
        t = nl.load(x[rows, :])
        p = nl.load(rates[rows, :])
        kept = nisa.dropout(t, prob=p)
        keep_scale = nl.where(nl.less(p, 1.0), nl.reciprocal(nl.maximum(nl.subtract(1.0, p), 1e-6)), 0.0)
        nl.store(y[rows, :], nl.multiply(kept, keep_scale))
        r = nl.rand((128, D))
        ok = nl.logical_and(nl.greater_equal(r, 0.0), nl.less(r, 1.0), dtype=nl.float32)
        nl.store(in_range[rows, :], nl.sum(ok, axis=[1], keepdims=True))
    return y, in_range
