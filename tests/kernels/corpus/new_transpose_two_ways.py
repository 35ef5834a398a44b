# Two transposes of each (128, 64) block in the newer `nki` API: nisa.dma_transpose(dst=, src=)
# from HBM, and a Tensor Engine transpose as a matmul against nl.shared_identity_matrix
# (nc_matmul(dst=psum, stationary=block, moving=identity, is_transpose=True)) copied out of PSUM;
# the kernel returns both results.
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def kernel(x):
    R, C = x.shape
    by_dma = nl.ndarray((C, R), dtype=x.dtype, buffer=nl.shared_hbm)
    by_pe = nl.ndarray((C, R), dtype=x.dtype, buffer=nl.shared_hbm)
    ident_hbm = nl.shared_identity_matrix(128, dtype=nl.float32)
    ident = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=ident, src=ident_hbm)
    for t in nl.affine_range(R // 128):
        td = nl.ndarray((C, 128), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_transpose(dst=td, src=x[t * 128:(t + 1) * 128, :])
        nisa.dma_copy(dst=by_dma[:, t * 128:(t + 1) * 128], src=td)
        blk = nl.ndarray((128, C), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=blk, src=x[t * 128:(t + 1) * 128, :])
        tp = nl.ndarray((C, 128), dtype=nl.float32, buffer=nl.psum)
        nisa.nc_matmul(dst=tp, stationary=blk, moving=ident, is_transpose=True)
        res = nl.ndarray((C, 128), dtype=x.dtype, buffer=nl.sbuf)
        nisa.tensor_copy(dst=res, src=tp)
        nisa.dma_copy(dst=by_pe[:, t * 128:(t + 1) * 128], src=res)
    return by_dma, by_pe
