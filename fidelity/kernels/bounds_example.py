# AWS performance-bounds worked example, versions V0-V2 (Trn2, BF16, 4096 x 4096 x 4096).
# Source: aws-neuron/neuron-agentic-development@c7937320 skills/neuron-nki-profile-querying/
#         references/example-bounds-analysis.md (code sketches), as described in
#         trainium-measurements.md §1.3. New NKI API (dma_copy, nc_matmul(dst=...)).
# V1 uses TILES_IN_BLOCK_M = 8: the results are labelled "BM=8, BN=2"; the sketch's 12 does not
# divide 4096, and the reported memory_bound_ideal (463 us = lhsT once + rhs 4x + output) fits 8.
import nki
import nki.language as nl
import nki.isa as nisa

TILE_M = 128
TILE_K = 128
TILE_N = 512


@nki.jit
def matmul_v0_tiled(lhsT, rhs):
  K, M = lhsT.shape
  _, N = rhs.shape
  result = nl.ndarray((M, N), dtype=lhsT.dtype, buffer=nl.shared_hbm)
  for m in nl.affine_range(M // TILE_M):
    for n in nl.affine_range(N // TILE_N):
      res_psum = nl.ndarray((TILE_M, TILE_N), nl.float32, buffer=nl.psum)
      for k in nl.affine_range(K // TILE_K):
        lhsT_tile = nl.ndarray((TILE_K, TILE_M), dtype=lhsT.dtype, buffer=nl.sbuf)
        rhs_tile = nl.ndarray((TILE_K, TILE_N), dtype=rhs.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=lhsT_tile, src=lhsT[k * TILE_K:(k + 1) * TILE_K, m * TILE_M:(m + 1) * TILE_M])
        nisa.dma_copy(dst=rhs_tile, src=rhs[k * TILE_K:(k + 1) * TILE_K, n * TILE_N:(n + 1) * TILE_N])
        nisa.nc_matmul(dst=res_psum, stationary=lhsT_tile, moving=rhs_tile)
      res_sb = nl.ndarray((TILE_M, TILE_N), dtype=result.dtype, buffer=nl.sbuf)
      nisa.tensor_copy(dst=res_sb, src=res_psum)
      nisa.dma_copy(dst=result[m * TILE_M:(m + 1) * TILE_M, n * TILE_N:(n + 1) * TILE_N], src=res_sb)
  return result


@nki.jit
def matmul_v1_block_mn(lhsT, rhs):
  K, M = lhsT.shape
  _, N = rhs.shape
  result = nl.ndarray((M, N), dtype=lhsT.dtype, buffer=nl.shared_hbm)
  TILES_IN_BLOCK_M = 8
  TILES_IN_BLOCK_N = 2
  BLOCK_M = TILE_M * TILES_IN_BLOCK_M
  BLOCK_N = TILE_N * TILES_IN_BLOCK_N
  for mb in nl.affine_range(M // BLOCK_M):
    # lhsT tiles of the M-block: TILES_IN_BLOCK_M x K-tiles separate [128, 128] transfers.
    lhsT_tiles = []
    for bm in nl.affine_range(TILES_IN_BLOCK_M):
      row = []
      for k in nl.affine_range(K // TILE_K):
        t = nl.ndarray((TILE_K, TILE_M), dtype=lhsT.dtype, buffer=nl.sbuf)
        col = mb * BLOCK_M + bm * TILE_M
        nisa.dma_copy(dst=t, src=lhsT[k * TILE_K:(k + 1) * TILE_K, col:col + TILE_M])
        row.append(t)
      lhsT_tiles.append(row)
    for nb in nl.affine_range(N // BLOCK_N):
      # rhs tiles of the N-block, loaded once and reused by every m-tile of the M-block.
      rhs_tiles = []
      for bn in nl.affine_range(TILES_IN_BLOCK_N):
        col_tiles = []
        for k in nl.affine_range(K // TILE_K):
          t = nl.ndarray((TILE_K, TILE_N), dtype=rhs.dtype, buffer=nl.sbuf)
          col = nb * BLOCK_N + bn * TILE_N
          nisa.dma_copy(dst=t, src=rhs[k * TILE_K:(k + 1) * TILE_K, col:col + TILE_N])
          col_tiles.append(t)
        rhs_tiles.append(col_tiles)
      for bm in nl.affine_range(TILES_IN_BLOCK_M):
        for bn in nl.affine_range(TILES_IN_BLOCK_N):
          res_psum = nl.ndarray((TILE_M, TILE_N), nl.float32, buffer=nl.psum)
          for k in nl.affine_range(K // TILE_K):
            nisa.nc_matmul(dst=res_psum, stationary=lhsT_tiles[bm][k], moving=rhs_tiles[bn][k])
          res_sb = nl.ndarray((TILE_M, TILE_N), dtype=result.dtype, buffer=nl.sbuf)
          nisa.tensor_copy(dst=res_sb, src=res_psum)
          row = mb * BLOCK_M + bm * TILE_M
          col = nb * BLOCK_N + bn * TILE_N
          nisa.dma_copy(dst=result[row:row + TILE_M, col:col + TILE_N], src=res_sb)
  return result


@nki.jit
def matmul_v2_row_loads(lhsT, rhs):
  K, M = lhsT.shape
  _, N = rhs.shape
  result = nl.ndarray((M, N), dtype=lhsT.dtype, buffer=nl.shared_hbm)
  TILES_IN_BLOCK_M = 8
  TILES_IN_BLOCK_N = 2
  BLOCK_M = TILE_M * TILES_IN_BLOCK_M  # 1024
  BLOCK_N = TILE_N * TILES_IN_BLOCK_N  # 1024
  for mb in nl.affine_range(M // BLOCK_M):
    # One [128, BLOCK_M] row per K-tile (2 KiB per partition) instead of 8 [128, 128] tiles.
    lhsT_rows = []
    for k in nl.affine_range(K // TILE_K):
      t = nl.ndarray((TILE_K, BLOCK_M), dtype=lhsT.dtype, buffer=nl.sbuf)
      nisa.dma_copy(dst=t, src=lhsT[k * TILE_K:(k + 1) * TILE_K, mb * BLOCK_M:(mb + 1) * BLOCK_M])
      lhsT_rows.append(t)
    for nb in nl.affine_range(N // BLOCK_N):
      rhs_rows = []
      for k in nl.affine_range(K // TILE_K):
        t = nl.ndarray((TILE_K, BLOCK_N), dtype=rhs.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=rhs[k * TILE_K:(k + 1) * TILE_K, nb * BLOCK_N:(nb + 1) * BLOCK_N])
        rhs_rows.append(t)
      for bm in nl.affine_range(TILES_IN_BLOCK_M):
        for bn in nl.affine_range(TILES_IN_BLOCK_N):
          res_psum = nl.ndarray((TILE_M, TILE_N), nl.float32, buffer=nl.psum)
          for k in nl.affine_range(K // TILE_K):
            nisa.nc_matmul(dst=res_psum,
                           stationary=lhsT_rows[k][:, bm * TILE_M:(bm + 1) * TILE_M],
                           moving=rhs_rows[k][:, bn * TILE_N:(bn + 1) * TILE_N])
          res_sb = nl.ndarray((TILE_M, TILE_N), dtype=result.dtype, buffer=nl.sbuf)
          nisa.tensor_copy(dst=res_sb, src=res_psum)
          row = mb * BLOCK_M + bm * TILE_M
          col = nb * BLOCK_N + bn * TILE_N
          nisa.dma_copy(dst=result[row:row + TILE_M, col:col + TILE_N], src=res_sb)
  return result
