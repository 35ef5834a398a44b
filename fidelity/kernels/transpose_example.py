# TE transpose overhead investigation, V0 and V1 (Trn2, BF16, 2048 x 2048 x 2048).
# Source: aws-neuron/neuron-agentic-development@1598b060 skills/neuron-nki-profile-querying/
#         references/investigations/redundant_te_transposes.md (code sketches), as described in
#         trainium-measurements.md §1.4. New NKI API.
import nki
import nki.language as nl
import nki.isa as nisa

TILE_M = 128
TILE_K = 128
TILE_N = 512


@nki.jit
def matmul_v0_transpose_on_te(a, rhs):
  """A is [M, K] (not transposed): each A tile is transposed on the Tensor Engine."""
  M, K = a.shape
  _, N = rhs.shape
  result = nl.ndarray((M, N), dtype=a.dtype, buffer=nl.shared_hbm)
  for m in nl.affine_range(M // TILE_M):
    for n in nl.affine_range(N // TILE_N):
      res_psum = nl.ndarray((TILE_M, TILE_N), nl.float32, buffer=nl.psum)
      for k in nl.affine_range(K // TILE_K):
        a_tile = nl.ndarray((TILE_M, TILE_K), dtype=a.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=a_tile, src=a[m * TILE_M:(m + 1) * TILE_M, k * TILE_K:(k + 1) * TILE_K])
        a_t_psum = nl.ndarray((TILE_K, TILE_M), dtype=a.dtype, buffer=nl.psum)
        nisa.nc_transpose(dst=a_t_psum, data=a_tile)
        lhsT_tile = nl.ndarray((TILE_K, TILE_M), dtype=a.dtype, buffer=nl.sbuf)
        nisa.tensor_copy(dst=lhsT_tile, src=a_t_psum)
        rhs_tile = nl.ndarray((TILE_K, TILE_N), dtype=rhs.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=rhs_tile, src=rhs[k * TILE_K:(k + 1) * TILE_K, n * TILE_N:(n + 1) * TILE_N])
        nisa.nc_matmul(dst=res_psum, stationary=lhsT_tile, moving=rhs_tile)
      res_sb = nl.ndarray((TILE_M, TILE_N), dtype=result.dtype, buffer=nl.sbuf)
      nisa.tensor_copy(dst=res_sb, src=res_psum)
      nisa.dma_copy(dst=result[m * TILE_M:(m + 1) * TILE_M, n * TILE_N:(n + 1) * TILE_N], src=res_sb)
  return result


@nki.jit
def matmul_v1_pre_transposed(lhsT, rhs):
  """Same loops with lhsT [K, M] passed pre-transposed: no nc_transpose, no copy."""
  K, M = lhsT.shape
  _, N = rhs.shape
  result = nl.ndarray((M, N), dtype=lhsT.dtype, buffer=nl.shared_hbm)
  for m in nl.affine_range(M // TILE_M):
    for n in nl.affine_range(N // TILE_N):
      res_psum = nl.ndarray((TILE_M, TILE_N), nl.float32, buffer=nl.psum)
      for k in nl.affine_range(K // TILE_K):
        lhsT_tile = nl.ndarray((TILE_K, TILE_M), dtype=lhsT.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=lhsT_tile, src=lhsT[k * TILE_K:(k + 1) * TILE_K, m * TILE_M:(m + 1) * TILE_M])
        rhs_tile = nl.ndarray((TILE_K, TILE_N), dtype=rhs.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=rhs_tile, src=rhs[k * TILE_K:(k + 1) * TILE_K, n * TILE_N:(n + 1) * TILE_N])
        nisa.nc_matmul(dst=res_psum, stationary=lhsT_tile, moving=rhs_tile)
      res_sb = nl.ndarray((TILE_M, TILE_N), dtype=result.dtype, buffer=nl.sbuf)
      nisa.tensor_copy(dst=res_sb, src=res_psum)
      nisa.dma_copy(dst=result[m * TILE_M:(m + 1) * TILE_M, n * TILE_N:(n + 1) * TILE_N], src=res_sb)
  return result
