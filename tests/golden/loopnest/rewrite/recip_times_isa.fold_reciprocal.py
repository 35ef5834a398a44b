# y = x / (1 + t) with the division written as the ISA spells it: a reciprocal, then a
# nisa.tensor_tensor multiply (x (256, 512), t (256, 512)). fold_reciprocal prints the language
# nl.divide(x, d): divide is no operator of nisa.tensor_tensor (nki-language.md 9.1), so the
# tensor_tensor with a divide operator it printed until session 38 does not compile.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x, t):
    out = nl.ndarray(x.shape, dtype=nl.float32, buffer=nl.shared_hbm)
    for r in nl.affine_range(x.shape[0] // 128):
        xt = nl.load(x[r * 128:(r + 1) * 128, :])
        tt = nl.load(t[r * 128:(r + 1) * 128, :])
        d = nisa.tensor_scalar(data=tt, op0=nl.add, operand0=1.0)
        y = nl.divide(x=xt, y=d)
        nl.store(out[r * 128:(r + 1) * 128, :], value=y)
    return out
