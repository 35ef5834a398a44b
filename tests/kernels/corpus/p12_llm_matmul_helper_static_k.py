"""gelu(x @ w) as an assistant writes it: a helper that returns the PSUM product of one row block
(the K loop unrolled by nl.static_range, `+=` into nl.zeros in PSUM), a typed helper with a default
activation function argument, module constants, asserts on unpacked shapes."""
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl

P = 128
N_TILE = 512


def block_matmul(xT, w, m: int, n_k: int, n: int):
    """x[m*P:(m+1)*P, :] @ w for xT = x^T in HBM: [P, n] in PSUM."""
    acc = nl.zeros((P, n), dtype=nl.float32, buffer=nl.psum)
    for k in nl.static_range(n_k):
        lhsT = nl.load(xT[k * P:(k + 1) * P, m * P:(m + 1) * P])
        rhs = nl.load(w[k * P:(k + 1) * P, :])
        acc += nl.matmul(lhsT, rhs, transpose_x=True)
    return acc


def epilogue(acc, act=nl.gelu):
    return act(nl.copy(acc, dtype=nl.float32))


@nki.jit
def matmul_gelu(xT, w):
    K, M = xT.shape
    K2, N = w.shape
    assert K == K2 and K % P == 0 and M % P == 0
    assert N <= N_TILE
    out = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    for m in nl.affine_range(M // P):
        acc = block_matmul(xT, w, m, K // P, N)
        nl.store(out[m * P:(m + 1) * P, :], value=epilogue(acc))
    return out
