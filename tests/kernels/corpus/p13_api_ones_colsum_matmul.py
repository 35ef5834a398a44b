# Column sums on the Tensor Engine: an nl.ones column as the stationary operand of
# nl.matmul(ones, t, transpose_x=True), accumulated with `+=` over the row tiles into a (1, N)
# PSUM tile, then the mean by an operator (`/ n`).
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x):
    n, d = x.shape
    out = nl.ndarray((1, d), dtype=x.dtype, buffer=nl.shared_hbm)
    ones = nl.ones((128, 1), dtype=nl.float32)
    acc = nl.zeros((1, d), dtype=nl.float32, buffer=nl.psum)
    for i in nl.affine_range(n // 128):
        t = nl.load(x[i * 128:(i + 1) * 128, :])
        acc += nl.matmul(ones, t, transpose_x=True)
    mean = nl.copy(acc) / n
    nl.store(out[0:1, :], value=mean)
    return out
