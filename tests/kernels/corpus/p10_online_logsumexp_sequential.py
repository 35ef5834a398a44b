import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def row_logsumexp(x):
    # log(sum(exp(x), axis=1)) over rows too wide for one pass: the columns are streamed in
    # chunks by nl.sequential_range, carrying the running max m and the running sum l
    # (rescaled by exp(m_old - m_new) whenever the max grows), as flash attention does.
    R, C = x.shape
    CH = 512
    out = nl.ndarray((R, 1), dtype=x.dtype, buffer=nl.shared_hbm)
    for r in nl.affine_range(R // 128):
        m = nl.full((128, 1), -3.0e38, dtype=nl.float32)
        l = nl.zeros((128, 1), dtype=nl.float32)
        for c in nl.sequential_range(C // CH):
            t = nl.load(x[r * 128:(r + 1) * 128, c * CH:(c + 1) * CH])
            m_new = nl.maximum(m, nl.max(t, axis=1, keepdims=True))
            neg = nl.multiply(m_new, -1.0)
            e = nisa.activation(op=nl.exp, data=t, bias=neg)
            l = nl.add(nl.multiply(l, nl.exp(nl.subtract(m, m_new))),
                       nl.sum(e, axis=1, keepdims=True))
            m = m_new
        nl.store(out[r * 128:(r + 1) * 128, :], value=nl.add(nl.log(l), m))
    return out
