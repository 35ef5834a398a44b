# A CUDA/Triton-style port: the entry point only computes the grid and launches one program per
# (row block, column block) of the output; each program loads the row block of x it needs, so the
# programs of one grid row load the same x tiles (a move across programs hoists them: launch=open).
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl

M, K, N = 256, 256, 1024
BLOCK_M = 128
BLOCK_N = 512
BLOCK_K = 128


@nki.jit
def _block_kernel(x, w):
    out = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    x2 = x.reshape((M, K))
    pid_m = nl.program_id(0)
    pid_n = nl.program_id(1)
    offs_m = pid_m * BLOCK_M + nl.arange(BLOCK_M)[:, None]
    offs_n = pid_n * BLOCK_N + nl.arange(BLOCK_N)[None, :]
    acc = nl.zeros((BLOCK_M, BLOCK_N), nl.float32, buffer=nl.psum)
    for k in nl.affine_range(K // BLOCK_K):
        offs_kf = k * BLOCK_K + nl.arange(BLOCK_K)[None, :]
        offs_kp = k * BLOCK_K + nl.arange(BLOCK_K)[:, None]
        x_tile = nl.load(x2[offs_m, offs_kf], mask=(offs_m < M) & (offs_kf < K))
        xT = nl.copy(nl.transpose(x_tile))
        w_tile = nl.load(w[offs_kp, offs_n], mask=(offs_kp < K) & (offs_n < N))
        acc += nl.matmul(xT, w_tile, transpose_x=True)
    res = nl.copy(acc)
    nl.store(out[offs_m, offs_n], value=res, mask=(offs_m < M) & (offs_n < N))
    return out


def kernel(x, w):
    grid_m = (M + BLOCK_M - 1) // BLOCK_M
    grid_n = (N + BLOCK_N - 1) // BLOCK_N
    return _block_kernel[grid_m, grid_n](x, w)
