# lhsT (128, 2, 512), rhs (128, 2, 4096): out = lhsT^T @ rhs, written column block first: each
# 512-wide block of rhs is filled into a block-dim buffer once, then every row tile of lhs is
# loaded for it, so lhs is re-read once per column block. hoist_expand moves the lhs load before
# the column loop, per chunk of row tiles (the column blocks then re-filled once per chunk).
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa
from neuronxcc.nki.language import par_dim


@nki.jit
def kernel(lhs, rhs):
    P, KT, M = lhs.shape
    N = rhs.shape[2]
    out = nl.ndarray((M, N), dtype=lhs.dtype, buffer=nl.shared_hbm)
    i_k, i_m = nl.mgrid[0:128, 0:128]
    i_kn, i_n = nl.mgrid[0:128, 0:512]
    i_om, i_on = nl.mgrid[0:128, 0:512]
    for n in nl.affine_range(N // 512):
        rhs_tiles = nl.ndarray((KT, par_dim(P), 512), dtype=rhs.dtype, buffer=nl.sbuf)
        for kt in nl.affine_range(KT):
            rhs_tiles[kt, i_kn, i_n] = nl.load(rhs[i_kn, kt, n * 512 + i_n])
        for m in nl.affine_range(M // 128):
            acc = nl.zeros((par_dim(128), 512), dtype=nl.float32, buffer=nl.psum)
            for kt in nl.affine_range(KT):
                lhs_tile = nl.load(lhs[i_k, kt, m * 128 + i_m])
                acc[i_om, i_on] += nisa.nc_matmul(lhs_tile, rhs_tiles[kt, i_kn, i_n])
            nl.store(out[m * 128 + i_om, n * 512 + i_on], value=nl.copy(acc, dtype=out.dtype))
    return out
