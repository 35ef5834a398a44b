import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def rope(x, cos, sin):
    """Rotary embedding on a (D, S) layout: the two halves taken with negative-index slices
    (x[:-h], x[-h:]), cos/sin loaded with .astype casts, python range with a step over the
    sequence, and the two result halves stored through negative slices of the output."""
    D, S = x.shape
    h = cos.shape[0]
    assert 2 * h == D
    out = nl.ndarray((D, S), dtype=x.dtype, buffer=nl.shared_hbm)
    step = 256
    for s in range(0, S, step):
        lo = nl.load(x[:-h, s:s + step])
        hi = nl.load(x[-h:, s:s + step])
        c = nl.load(cos[:, s:s + step]).astype(nl.float32)
        sn = nl.load(sin[:, s:s + step]).astype(nl.float32)
        top = nl.subtract(nl.multiply(lo, c), nl.multiply(hi, sn))
        bot = nisa.tensor_tensor(nl.multiply(lo, sn), nl.multiply(hi, c), op=nl.add)
        nl.store(out[:-h, s:s + step], top)
        nl.store(out[-h:, s:s + step], bot)
    return out
