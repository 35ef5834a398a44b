# p @ v with each [128, 128] block of p transposed as the matmul against an identity flagged
# ones-and-zeros (`nc_matmul(..., moving=ident, is_moving_onezero=True, is_transpose=True)`, the
# bundled NKIBench kernels' spelling). Same program as pv_nc_transpose.py.
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def kernel(p, v):
    rows, seq = p.shape
    d = v.shape[1]
    tiles = seq // 128
    out = nl.ndarray((rows, d), dtype=p.dtype, buffer=nl.shared_hbm)
    ident_hbm = nl.shared_identity_matrix(128, dtype=nl.float32)
    ident = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=ident, src=ident_hbm)
    p_tile = nl.ndarray((128, seq), dtype=p.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=p_tile, src=p)
    v_tiles = nl.ndarray((128, tiles, d), dtype=v.dtype, buffer=nl.sbuf)
    for t in nl.affine_range(tiles):
        nisa.dma_copy(dst=v_tiles[:, t, :], src=v[t * 128:(t + 1) * 128, :])
    for j in nl.affine_range(d // 128):
        acc = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.psum)
        for t in nl.affine_range(tiles):
            p_psum = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.psum)
            nisa.nc_matmul(dst=p_psum, stationary=p_tile[:, t * 128:(t + 1) * 128], moving=ident,
                           is_moving_onezero=True, is_transpose=True)
            p_t = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.sbuf)
            nisa.tensor_copy(dst=p_t, src=p_psum)
            nisa.nc_matmul(dst=acc, stationary=p_t, moving=v_tiles[:, t, j * 128:(j + 1) * 128])
        res = nl.ndarray((128, 128), dtype=p.dtype, buffer=nl.sbuf)
        nisa.tensor_copy(dst=res, src=acc)
        nisa.dma_copy(dst=out[:, j * 128:(j + 1) * 128], src=res)
    return out
