# One program in three spellings (p13_trio_softmax_{isa,api,gen}): row softmax per 128-row tile.
# This one in the bundled kernels' ISA style: tensor_reduce, tensor_scalar, activation; the
# division stays nl.divide, as divide has no ISA spelling (nki-language.md 9.1).
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x):
    n, d = x.shape
    out = nl.ndarray((n, d), dtype=x.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(n // 128):
        t = nl.load(x[i * 128:(i + 1) * 128, :])
        m = nisa.tensor_reduce(nl.max, data=t, axis=[1], keepdims=True)
        z = nisa.tensor_scalar(data=t, op0=nl.subtract, operand0=m)
        e = nisa.activation(op=nl.exp, data=z)
        s = nisa.tensor_reduce(nl.add, data=e, axis=[1], keepdims=True)
        p = nl.divide(e, s)
        nl.store(out[i * 128:(i + 1) * 128, :], value=p)
    return out
