# A helper whose own loop variable is named like a kernel parameter (`for k in range(2)` beside
# `kernel(x, k)`): opened into the kernel's loop, the variable must not rebind the parameter.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


def add_halves(t, acc):
    for k in range(2):
        acc[...] = nl.add(acc, t[:, nl.ds(k * 64, 64)])
    return acc


@nki.jit
def kernel(x, k):
    rows, cols = x.shape
    out = nl.ndarray((rows, 64), dtype=x.dtype, buffer=nl.shared_hbm)
    for r in nl.affine_range(rows // 128):
        t = nl.load(x[nl.ds(r * 128, 128), :])
        kt = nl.load(k[nl.ds(r * 128, 128), :])
        acc = nl.copy(kt)
        add_halves(t, acc)
        nl.store(out[nl.ds(r * 128, 128), :], value=acc)
    return out
