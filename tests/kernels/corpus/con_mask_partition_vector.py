# Masks written with the partition-axis arange `nl.arange(P)[:, None]` over instructions whose
# operand is a partition vector: the (P,) result of a free-axis reduction is the (P, 1) tile
# (nki-language.md 3.7), so the mask's first axis is its partition axis and its second, of size 1,
# is the vector's one value per partition.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x):
    P, F = x.shape
    out = nl.ndarray((P, 3), dtype=x.dtype, buffer=nl.shared_hbm)
    i_p = nl.arange(P)[:, None]
    t = nl.load(x)
    mx = nl.max(t, axis=[1])
    sm = nl.sum(t, axis=1)
    res = nl.zeros((P, 3), dtype=nl.float32, buffer=nl.sbuf)
    res[i_p, 0] = nl.copy(mx, mask=(i_p < 64))
    res[i_p, 1] = nisa.activation(op=nl.exp, data=sm, scale=0.01, mask=(i_p >= 32) & (i_p < 96))
    res[i_p, 2] = nisa.tensor_scalar(data=mx, op0=nl.multiply, operand0=2.0, mask=(2 * i_p + 1 > 200))
    nl.store(out, value=res)
    return out
