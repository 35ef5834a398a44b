import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def matmul_tiled(lhsT, rhs):
    """C = lhsT.T @ rhs with every tile size read from nl.tile_size, the K blocks of the
    stationary operand held in one block-dim ndarray with nl.par_dim, and the PSUM tile
    accumulated with += over K."""
    K, M = lhsT.shape
    K_, N = rhs.shape
    assert K == K_, "contraction dims differ"
    TK = nl.tile_size.pmax                 # 128: partitions, the contraction tile
    TM = nl.tile_size.gemm_stationary_fmax  # 128
    TN = nl.tile_size.gemm_moving_fmax      # 512
    n_k, n_m, n_n = K // TK, M // TM, N // TN
    out = nl.ndarray((M, N), dtype=lhsT.dtype, buffer=nl.shared_hbm)

    for m in nl.affine_range(n_m):
        # all K blocks of this stationary column block, one (128, 128) tile per block
        a_blocks = nl.ndarray((n_k, nl.par_dim(TK), TM), dtype=lhsT.dtype, buffer=nl.sbuf)
        for k in nl.affine_range(n_k):
            a_blocks[k, :, :] = nl.load(lhsT[k * TK:(k + 1) * TK, m * TM:(m + 1) * TM])
        for n in nl.affine_range(n_n):
            acc = nl.zeros((TM, TN), nl.float32, buffer=nl.psum)
            for k in nl.affine_range(n_k):
                b = nl.load(rhs[k * TK:(k + 1) * TK, n * TN:(n + 1) * TN])
                acc += nisa.nc_matmul(a_blocks[k, :, :], b)
            res = nl.copy(acc, dtype=out.dtype)
            nl.store(out[m * TM:(m + 1) * TM, n * TN:(n + 1) * TN], value=res)
    return out
