# The hardware generator seeded from a one-element SBUF tile (nl.random_seed(seed), nki-language.md
# 7.2; a 32-bit scalar, which kernels hold in a (1, 1) tile), then nl.rand and nl.dropout(rate=0).
# A trace-only run (accelopt profile) holds no tile values: the seed must not be read there (it
# crashed the profile).
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x):
    P, N = x.shape
    out = nl.ndarray((P, N), dtype=x.dtype, buffer=nl.shared_hbm)
    seed = nl.full((1, 1), 1234, dtype=nl.int32, buffer=nl.sbuf)
    nl.random_seed(seed=seed)
    t = nl.load(x)
    kept = nl.dropout(t, rate=0.0)
    u = nl.rand((P, N), dtype=nl.float32)
    in_range = nl.less(u, 1.0)
    nl.store(out, value=nl.multiply(kept, in_range, dtype=nl.float32))
    return out
