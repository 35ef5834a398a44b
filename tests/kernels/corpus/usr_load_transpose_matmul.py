# A row-major left operand used three ways a user tries after reading the nl API pages:
# nl.load_transpose2d to get the (K, M) stationary tile for nisa.nc_matmul accumulated into
# PSUM with `+=`, nl.matmul(x, y) without transpose_x (the compiler transposes x), and
# nl.matmul(..., transpose_x=True) on the transposed load; the second output is the first
# result transposed back with nl.transpose; outputs returned as a tuple.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def matmul_three_ways(a, b):
    M, K = a.shape
    _, N = b.shape
    TK = 128
    c1 = nl.ndarray((M, N), dtype=a.dtype, buffer=nl.shared_hbm)
    c2 = nl.ndarray((M, N), dtype=a.dtype, buffer=nl.shared_hbm)
    c3 = nl.ndarray((M, N), dtype=a.dtype, buffer=nl.shared_hbm)
    ct = nl.ndarray((N, M), dtype=a.dtype, buffer=nl.shared_hbm)

    p1 = nl.zeros((M, N), nl.float32, buffer=nl.psum)
    p2 = nl.zeros((M, N), nl.float32, buffer=nl.psum)
    p3 = nl.zeros((M, N), nl.float32, buffer=nl.psum)
    for k in nl.affine_range(K // TK):
        aT = nl.load_transpose2d(a[:, k * TK:(k + 1) * TK])  # (TK, M)
        a_rows = nl.load(a[:, k * TK:(k + 1) * TK])  # (M, TK)
        bk = nl.load(b[k * TK:(k + 1) * TK, :])
        p1 += nisa.nc_matmul(aT, bk)
        p2 += nl.matmul(a_rows, bk)
        p3 += nl.matmul(aT, bk, transpose_x=True)
    r1 = nl.copy(p1, dtype=a.dtype)
    nl.store(c1, value=r1)
    nl.store(c2, value=nl.copy(p2))
    nl.store(c3, value=p3)
    nl.store(ct, value=nl.transpose(r1))
    return c1, c2, c3, ct
