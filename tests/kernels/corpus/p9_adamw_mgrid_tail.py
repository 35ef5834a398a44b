import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


def _ema(old, new, beta, *, scale_new=None):
    # beta * old + (1 - beta) * new, the second factor given when it is not 1 - beta
    k = (1.0 - beta) if scale_new is None else scale_new
    return nisa.scalar_tensor_tensor(data=old, op0=np.multiply, operand0=beta, op1=np.add,
                                     operand1=nl.multiply(new, k))


@nki.jit
def adamw_step(theta, grad, m, v, lr=1e-3, wd=1e-2):
    """AdamW over a row count that is not a multiple of 128: an mgrid pair for the tile,
    a ragged last block guarded by mask= on every load, op and store, a helper with a
    keyword-only default, and a lambda for the update's denominator."""
    rows, cols = theta.shape
    out = nl.ndarray(theta.shape, dtype=theta.dtype, buffer=nl.shared_hbm)
    i_p, i_f = nl.mgrid[0:128, 0:cols]
    denom = lambda vv: nl.add(nl.sqrt(nl.multiply(vv, 1000.0)), 1e-8)
    for b in nl.affine_range((rows + 127) // 128):
        keep = b * 128 + i_p < rows
        th = nl.load(theta[b * 128 + i_p, i_f], mask=keep)
        g = nl.load(grad[b * 128 + i_p, i_f], mask=keep)
        mt = nl.load(m[b * 128 + i_p, i_f], mask=keep)
        vt = nl.load(v[b * 128 + i_p, i_f], mask=keep)
        m_new = _ema(mt, g, 0.9)
        v_new = _ema(vt, nl.square(g, mask=keep), 0.999, scale_new=0.001)
        step = nl.divide(nl.multiply(m_new, lr * 10.0), denom(v_new), mask=keep)
        res = nl.subtract(nl.multiply(th, 1.0 - lr * wd), step, mask=keep)
        nl.store(out[b * 128 + i_p, i_f], value=res, mask=keep)
    return out
