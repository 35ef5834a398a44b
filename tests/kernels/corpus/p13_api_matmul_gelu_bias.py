# nl.matmul without transpose_x (x tiles (128, 128), the compiler transposes them), a bias row
# broadcast over the partitions with nl.broadcast_to, Python operators on tiles (`acc + b`),
# nl.gelu_apprx_tanh on the sum, K accumulated in a PSUM tile made by nl.zeros.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x, w, bias):
    M, K = x.shape
    _, N = w.shape
    out = nl.ndarray((M, N), dtype=x.dtype, buffer=nl.shared_hbm)
    b_row = nl.load(bias[0:1, 0:N])
    b = nl.broadcast_to(b_row, shape=(128, N))
    for m in nl.affine_range(M // 128):
        acc = nl.zeros((128, N), nl.float32, buffer=nl.psum)
        for k in nl.affine_range(K // 128):
            x_tile = nl.load(x[m * 128:(m + 1) * 128, k * 128:(k + 1) * 128])
            w_tile = nl.load(w[k * 128:(k + 1) * 128, 0:N])
            acc += nl.matmul(x_tile, w_tile)
        h = acc + b
        y = nl.gelu_apprx_tanh(h)
        nl.store(out[m * 128:(m + 1) * 128, 0:N], value=y)
    return out
