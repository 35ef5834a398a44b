# A row softmax written with named values and nl.* math, the way many authors write it:
# `m = nl.max(x, ...)`, `e = nl.exp(nl.subtract(x, m))`, `s = nl.sum(e, ...)`, `nl.divide(e, s)`.
# x (256, 512). fold_bias makes exp(x - m) one activation with the negated row max as its bias,
# after which fold_activation_reduce lets that activation sum its rows (the sum's Vector Engine
# pass goes): the instructions the bundled kernels spell by hand.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x):
    R, C = x.shape
    out = nl.ndarray((R, C), dtype=x.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(R // 128):
        t = nl.load(x[i * 128:(i + 1) * 128, :])
        m = nl.max(t, axis=1, keepdims=True)
        e = nisa.activation(op=nl.exp, data=t, bias=nl.multiply(x=m, y=-1.0))
        s = nl.sum(e, axis=1, keepdims=True)
        nl.store(out[i * 128:(i + 1) * 128, :], value=nl.divide(e, s))
    return out
