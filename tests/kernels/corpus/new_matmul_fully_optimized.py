# Newer-API fully optimized matrix multiplication: SBUF accumulators zeroed with nisa.memset(dst=),
# accumulation by nisa.tensor_tensor(dst=acc, data1=acc, data2=psum, op=nl.add), lists of tile
# lists, nl.sequential_range over K blocks, and a tensor_copy with dtype= (0.2-era tutorial).
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def nki_matmul_fully_optimized_(lhsT, rhs, TILES_IN_BLOCK_M=16, TILES_IN_BLOCK_N=2,
                                TILES_IN_BLOCK_K=8):
  K, M = lhsT.shape
  K_, N = rhs.shape
  assert K == K_, "lhsT and rhs must have the same contraction dimension"

  TILE_M = nl.tile_size.gemm_stationary_fmax  # 128
  TILE_K = nl.tile_size.pmax  # 128
  TILE_N = nl.tile_size.gemm_moving_fmax  # 512

  BLOCK_M = TILE_M * TILES_IN_BLOCK_M
  BLOCK_N = TILE_N * TILES_IN_BLOCK_N
  BLOCK_K = TILE_K * TILES_IN_BLOCK_K

  assert M % BLOCK_M == 0
  assert N % BLOCK_N == 0
  assert K % BLOCK_K == 0

  result = nl.ndarray((M, N), dtype=lhsT.dtype, buffer=nl.shared_hbm)

  NUM_BLOCK_M = M // BLOCK_M
  NUM_BLOCK_N = N // BLOCK_N
  NUM_BLOCK_K = K // BLOCK_K

  for n in nl.affine_range(NUM_BLOCK_N):
    result_tiles = []
    for m in nl.affine_range(NUM_BLOCK_M):
      block_tiles = []
      for bm in nl.affine_range(TILES_IN_BLOCK_M):
        row = []
        for bn in nl.affine_range(TILES_IN_BLOCK_N):
          acc = nl.ndarray((TILE_M, TILE_N), dtype=nl.float32, buffer=nl.sbuf)
          nisa.memset(dst=acc, value=0.0)
          row.append(acc)
        block_tiles.append(row)
      result_tiles.append(block_tiles)

    for k in nl.sequential_range(NUM_BLOCK_K):
      rhs_tiles = []
      for bk_r in nl.affine_range(TILES_IN_BLOCK_K):
        rhs_tile = nl.ndarray((TILE_K, BLOCK_N), dtype=rhs.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=rhs_tile,
                      src=rhs[(TILES_IN_BLOCK_K * k + bk_r) * TILE_K:(TILES_IN_BLOCK_K * k + bk_r + 1) * TILE_K,
                              BLOCK_N * n:BLOCK_N * (n + 1)])
        rhs_tiles.append(rhs_tile)

      for m in nl.affine_range(NUM_BLOCK_M):
        lhsT_tiles = []
        for bk_l in nl.affine_range(TILES_IN_BLOCK_K):
          lhsT_tile = nl.ndarray((TILE_K, BLOCK_M), dtype=lhsT.dtype, buffer=nl.sbuf)
          nisa.dma_copy(dst=lhsT_tile,
                        src=lhsT[(TILES_IN_BLOCK_K * k + bk_l) * TILE_K:(TILES_IN_BLOCK_K * k + bk_l + 1) * TILE_K,
                                 BLOCK_M * m:BLOCK_M * (m + 1)])
          lhsT_tiles.append(lhsT_tile)

        for bn in nl.affine_range(TILES_IN_BLOCK_N):
          for bm in nl.affine_range(TILES_IN_BLOCK_M):
            result_tile = nl.ndarray((TILE_M, TILE_N), dtype=nl.float32, buffer=nl.psum)
            for bk in nl.affine_range(TILES_IN_BLOCK_K):
              nisa.nc_matmul(
                  dst=result_tile,
                  stationary=lhsT_tiles[bk][:, bm * TILE_M:(bm + 1) * TILE_M],
                  moving=rhs_tiles[bk][:, bn * TILE_N:(bn + 1) * TILE_N])
            nisa.tensor_tensor(dst=result_tiles[m][bm][bn], data1=result_tiles[m][bm][bn],
                               data2=result_tile, op=nl.add)

    for m in nl.affine_range(NUM_BLOCK_M):
      for bm in nl.affine_range(TILES_IN_BLOCK_M):
        result_packed = nl.ndarray((TILE_K, BLOCK_N), dtype=result.dtype, buffer=nl.sbuf)
        for bn in nl.affine_range(TILES_IN_BLOCK_N):
          nisa.tensor_copy(dst=result_packed[:, bn * TILE_N:(bn + 1) * TILE_N],
                           src=result_tiles[m][bm][bn], dtype=result.dtype)
        nisa.dma_copy(dst=result[(TILES_IN_BLOCK_M * m + bm) * TILE_K:(TILES_IN_BLOCK_M * m + bm + 1) * TILE_K,
                                 BLOCK_N * n:BLOCK_N * (n + 1)],
                      src=result_packed)

  return result


def kernel(lhsT, rhs):
  return nki_matmul_fully_optimized_(lhsT, rhs, TILES_IN_BLOCK_M=2, TILES_IN_BLOCK_N=1, TILES_IN_BLOCK_K=2)
