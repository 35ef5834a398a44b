# "Introduction to NKI Kernel Optimization", the four profiled versions v2-v5 (Trn2, FP32).
# Source: aws-neuron-sdk@81ce03ae nki/guides/tutorials/kernel-optimization.rst (inline code;
#         screenshots nki/img/how-to/v{2,3,4,5}-*.png), as described in
#         trainium-measurements.md §1.2. New NKI API (`import nki`, destination-first nisa.*).
# The loop nests, tile sizes, DMA shapes and hoisting are the page's; the text is re-written
# from that description (the page is not reproduced verbatim here).
import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def nki_matmul_tiled(lhsT, rhs):
  """v2: for m, for n: a PSUM tile; for k: two fresh SBUF tiles, two dma_copy, one nc_matmul."""
  K, M = lhsT.shape
  K_, N = rhs.shape
  assert K == K_, "lhsT and rhs must have the same contraction dimension"
  result = nl.ndarray((M, N), dtype=lhsT.dtype, buffer=nl.shared_hbm)

  TILE_M = nl.tile_size.gemm_stationary_fmax  # 128
  TILE_K = nl.tile_size.pmax  # 128
  TILE_N = nl.tile_size.gemm_moving_fmax  # 512

  for m in nl.affine_range(M // TILE_M):
    for n in nl.affine_range(N // TILE_N):
      # Not zeroed: the first nc_matmul into a PSUM location overwrites it.
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
def nki_matmul_hoist_load(lhsT, rhs):
  """v3: the lhsT tiles of a row hoisted out of the n loop, the rhs tiles out of the k loop."""
  K, M = lhsT.shape
  K_, N = rhs.shape
  assert K == K_, "lhsT and rhs must have the same contraction dimension"
  result = nl.ndarray((M, N), dtype=lhsT.dtype, buffer=nl.shared_hbm)

  TILE_M = nl.tile_size.gemm_stationary_fmax  # 128
  TILE_K = nl.tile_size.pmax  # 128
  TILE_N = nl.tile_size.gemm_moving_fmax  # 512

  for m in nl.affine_range(M // TILE_M):
    lhsT_tiles = []
    for k in nl.affine_range(K // TILE_K):
      lhsT_tile = nl.ndarray((TILE_K, TILE_M), dtype=lhsT.dtype, buffer=nl.sbuf)
      nisa.dma_copy(dst=lhsT_tile, src=lhsT[k * TILE_K:(k + 1) * TILE_K, m * TILE_M:(m + 1) * TILE_M])
      lhsT_tiles.append(lhsT_tile)

    for n in nl.affine_range(N // TILE_N):
      rhs_tiles = []
      for k in nl.affine_range(K // TILE_K):
        rhs_tile = nl.ndarray((TILE_K, TILE_N), dtype=rhs.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=rhs_tile, src=rhs[k * TILE_K:(k + 1) * TILE_K, n * TILE_N:(n + 1) * TILE_N])
        rhs_tiles.append(rhs_tile)

      res_psum = nl.ndarray((TILE_M, TILE_N), nl.float32, buffer=nl.psum)
      for k in nl.affine_range(K // TILE_K):
        nisa.nc_matmul(dst=res_psum, stationary=lhsT_tiles[k], moving=rhs_tiles[k])

      res_sb = nl.ndarray((TILE_M, TILE_N), dtype=result.dtype, buffer=nl.sbuf)
      nisa.tensor_copy(dst=res_sb, src=res_psum)
      nisa.dma_copy(dst=result[m * TILE_M:(m + 1) * TILE_M, n * TILE_N:(n + 1) * TILE_N], src=res_sb)
  return result


@nki.jit
def nki_matmul_block_free_dimension(lhsT, rhs):
  """v4: M and N blocked by 2 tiles each; the tiles of a block are loaded once per block."""
  K, M = lhsT.shape
  K_, N = rhs.shape
  assert K == K_, "lhsT and rhs must have the same contraction dimension"
  result = nl.ndarray((M, N), dtype=lhsT.dtype, buffer=nl.shared_hbm)

  TILE_M = nl.tile_size.gemm_stationary_fmax  # 128
  TILE_K = nl.tile_size.pmax  # 128
  TILE_N = nl.tile_size.gemm_moving_fmax  # 512

  TILES_IN_BLOCK_M = 2
  TILES_IN_BLOCK_N = 2
  BLOCK_M = TILE_M * TILES_IN_BLOCK_M  # 256
  BLOCK_N = TILE_N * TILES_IN_BLOCK_N  # 1024
  assert M % BLOCK_M == 0
  assert N % BLOCK_N == 0

  for m in nl.affine_range(M // BLOCK_M):
    lhsT_tiles = []
    for bm in nl.affine_range(TILES_IN_BLOCK_M):
      lhsT_row = []
      for k in nl.affine_range(K // TILE_K):
        lhsT_tile = nl.ndarray((TILE_K, TILE_M), dtype=lhsT.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=lhsT_tile,
                      src=lhsT[k * TILE_K:(k + 1) * TILE_K,
                               (m * TILES_IN_BLOCK_M + bm) * TILE_M:(m * TILES_IN_BLOCK_M + bm + 1) * TILE_M])
        lhsT_row.append(lhsT_tile)
      lhsT_tiles.append(lhsT_row)

    for n in nl.affine_range(N // BLOCK_N):
      rhs_tiles = []
      for bn in nl.affine_range(TILES_IN_BLOCK_N):
        rhs_col = []
        for k in nl.affine_range(K // TILE_K):
          rhs_tile = nl.ndarray((TILE_K, TILE_N), dtype=rhs.dtype, buffer=nl.sbuf)
          nisa.dma_copy(dst=rhs_tile,
                        src=rhs[k * TILE_K:(k + 1) * TILE_K,
                                (n * TILES_IN_BLOCK_N + bn) * TILE_N:(n * TILES_IN_BLOCK_N + bn + 1) * TILE_N])
          rhs_col.append(rhs_tile)
        rhs_tiles.append(rhs_col)

      for bm in nl.affine_range(TILES_IN_BLOCK_M):
        for bn in nl.affine_range(TILES_IN_BLOCK_N):
          res_psum = nl.ndarray((TILE_M, TILE_N), nl.float32, buffer=nl.psum)
          for k in nl.affine_range(K // TILE_K):
            nisa.nc_matmul(dst=res_psum, stationary=lhsT_tiles[bm][k], moving=rhs_tiles[bn][k])

          res_sb = nl.ndarray((TILE_M, TILE_N), dtype=result.dtype, buffer=nl.sbuf)
          nisa.tensor_copy(dst=res_sb, src=res_psum)
          row = (m * TILES_IN_BLOCK_M + bm) * TILE_M
          col = (n * TILES_IN_BLOCK_N + bn) * TILE_N
          nisa.dma_copy(dst=result[row:row + TILE_M, col:col + TILE_N], src=res_sb)
  return result


@nki.jit
def nki_matmul_fully_optimized(lhsT, rhs):
  """v5: M, N and K blocked (16 / 2 / 8 tiles); rows of [128, BLOCK] per DMA; results accumulated
  in SBUF with tensor_tensor, packed into [128, BLOCK_N] tiles for the stores."""
  K, M = lhsT.shape
  K_, N = rhs.shape
  assert K == K_, "lhsT and rhs must have the same contraction dimension"
  result = nl.ndarray((M, N), dtype=lhsT.dtype, buffer=nl.shared_hbm)

  TILE_M = nl.tile_size.gemm_stationary_fmax  # 128
  TILE_K = nl.tile_size.pmax  # 128
  TILE_N = nl.tile_size.gemm_moving_fmax  # 512

  TILES_IN_BLOCK_M = 16
  TILES_IN_BLOCK_N = 2
  TILES_IN_BLOCK_K = 8
  BLOCK_M = TILE_M * TILES_IN_BLOCK_M  # 2048
  BLOCK_N = TILE_N * TILES_IN_BLOCK_N  # 1024
  BLOCK_K = TILE_K * TILES_IN_BLOCK_K  # 1024
  assert M % BLOCK_M == 0
  assert N % BLOCK_N == 0
  assert K % BLOCK_K == 0
  NUM_BLOCK_M = M // BLOCK_M
  NUM_BLOCK_N = N // BLOCK_N
  NUM_BLOCK_K = K // BLOCK_K

  for n in nl.affine_range(NUM_BLOCK_N):
    # SBUF accumulators, one per (M-block, bm, bn), zeroed (plain Python loops: unrolled).
    result_tiles = []
    for m in range(NUM_BLOCK_M):
      per_m = []
      for bm in range(TILES_IN_BLOCK_M):
        per_bm = []
        for bn in range(TILES_IN_BLOCK_N):
          acc = nl.ndarray((TILE_M, TILE_N), dtype=result.dtype, buffer=nl.sbuf)
          nisa.memset(dst=acc, value=0.0)
          per_bm.append(acc)
        per_m.append(per_bm)
      result_tiles.append(per_m)

    for k in nl.sequential_range(NUM_BLOCK_K):
      rhs_rows = []
      for bk in nl.affine_range(TILES_IN_BLOCK_K):
        rhs_row = nl.ndarray((TILE_K, BLOCK_N), dtype=rhs.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=rhs_row,
                      src=rhs[(TILES_IN_BLOCK_K * k + bk) * TILE_K:(TILES_IN_BLOCK_K * k + bk + 1) * TILE_K,
                              BLOCK_N * n:BLOCK_N * (n + 1)])
        rhs_rows.append(rhs_row)

      for m in nl.affine_range(NUM_BLOCK_M):
        lhsT_rows = []
        for bk in nl.affine_range(TILES_IN_BLOCK_K):
          lhsT_row = nl.ndarray((TILE_K, BLOCK_M), dtype=lhsT.dtype, buffer=nl.sbuf)
          nisa.dma_copy(dst=lhsT_row,
                        src=lhsT[(TILES_IN_BLOCK_K * k + bk) * TILE_K:(TILES_IN_BLOCK_K * k + bk + 1) * TILE_K,
                                 BLOCK_M * m:BLOCK_M * (m + 1)])
          lhsT_rows.append(lhsT_row)

        for bn in nl.affine_range(TILES_IN_BLOCK_N):
          for bm in nl.affine_range(TILES_IN_BLOCK_M):
            res_tile = nl.ndarray((TILE_M, TILE_N), nl.float32, buffer=nl.psum)
            for bk in nl.affine_range(TILES_IN_BLOCK_K):
              nisa.nc_matmul(dst=res_tile,
                             stationary=lhsT_rows[bk][:, bm * TILE_M:(bm + 1) * TILE_M],
                             moving=rhs_rows[bk][:, bn * TILE_N:(bn + 1) * TILE_N])
            acc = result_tiles[m][bm][bn]
            nisa.tensor_tensor(dst=acc, data1=acc, data2=res_tile, op=nl.add)

    for m in nl.affine_range(NUM_BLOCK_M):
      for bm in nl.affine_range(TILES_IN_BLOCK_M):
        result_packed = nl.ndarray((TILE_K, BLOCK_N), dtype=result.dtype, buffer=nl.sbuf)
        for bn in nl.affine_range(TILES_IN_BLOCK_N):
          nisa.tensor_copy(dst=result_packed[:, bn * TILE_N:(bn + 1) * TILE_N], src=result_tiles[m][bm][bn])
        row = (TILES_IN_BLOCK_M * m + bm) * TILE_K
        nisa.dma_copy(dst=result[row:row + TILE_K, BLOCK_N * n:BLOCK_N * (n + 1)], src=result_packed)
  return result
