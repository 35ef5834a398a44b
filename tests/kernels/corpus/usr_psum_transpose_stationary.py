# C = A @ B with A given row-major (M, K): each 128x128 block of A is transposed on the Tensor
# Engine with nisa.nc_transpose and the PSUM result is passed straight to nisa.nc_matmul as the
# stationary operand (the compiler inserts the PSUM -> SBUF copy); K is accumulated in PSUM with
# `+=`; tile sizes come from nl.tile_size; helpers return tiles; the output is an
# nl.ndarray(..., buffer=nl.shared_hbm) that is returned.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa

TILE_K = nl.tile_size.pmax
TILE_M = nl.tile_size.gemm_stationary_fmax
TILE_N = nl.tile_size.gemm_moving_fmax


def transposed_block(a, m, k):
    block = nl.load(a[m * TILE_M:(m + 1) * TILE_M, k * TILE_K:(k + 1) * TILE_K])
    return nisa.nc_transpose(block)


def matmul_block(a, b, m, n, K):
    acc = nl.zeros((TILE_M, TILE_N), dtype=nl.float32, buffer=nl.psum)
    for k in nl.affine_range(K // TILE_K):
        rhs = nl.load(b[k * TILE_K:(k + 1) * TILE_K, n * TILE_N:(n + 1) * TILE_N])
        acc += nisa.nc_matmul(transposed_block(a, m, k), rhs)
    return nl.copy(acc, dtype=nl.float32)


@nki.jit
def kernel(a, b):
    M, K = a.shape
    K2, N = b.shape
    assert K == K2
    c = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    for m in nl.affine_range(M // TILE_M):
        for n in nl.affine_range(N // TILE_N):
            nl.store(c[m * TILE_M:(m + 1) * TILE_M, n * TILE_N:(n + 1) * TILE_N], value=matmul_block(a, b, m, n, K))
    return c
