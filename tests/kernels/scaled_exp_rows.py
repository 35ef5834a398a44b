# x (256, 512), a (256, 4).
# exp(x * a[:, j]) per column j of a per-row table, as a selective scan's decay is written: the
# multiply by a [P, 1] column is an instruction of its own until fold_scale makes the column the
# activation's per-partition scale. Three spellings: a tensor_scalar, an nl.* product with the
# column first, and one whose activation has a scale of its own (a number and a column would need
# an instruction to combine: not folded).
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x, a):
    out = nl.ndarray((256, 4, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(2):
        t = nl.load(x[i * 128:(i + 1) * 128, :])
        a_t = nl.load(a[i * 128:(i + 1) * 128, :])
        d0 = nisa.tensor_scalar(data=t, op0=nl.multiply, operand0=a_t[:, 0:1])
        e0 = nisa.activation(op=nl.exp, data=d0)
        nl.store(out[i * 128:(i + 1) * 128, 0, :], value=e0)
        d1 = nl.multiply(a_t[:, 1:2], t)
        nl.store(out[i * 128:(i + 1) * 128, 1, :], value=nl.exp(d1))
        d2 = nl.multiply(t, a_t[:, 2:3])
        e2 = nisa.activation(op=nl.exp, data=d2, scale=0.5)
        nl.store(out[i * 128:(i + 1) * 128, 2, :], value=e2)
        nl.store(out[i * 128:(i + 1) * 128, 3, :], value=nl.exp(nl.multiply(t, 0.25)))
    return out
