# Out-of-place transpose of 128x128 blocks and a per-row scale in the newer `nki` API:
# nc_transpose(dst=psum) on the Tensor Engine, tensor_scalar(dst=sbuf) reading PSUM with a
# (128, 1) operand loaded once, block indices from divmod of one flat loop index.
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def transpose_scale(x, s):
    R, C = x.shape
    out = nl.ndarray((C, R), dtype=x.dtype, buffer=nl.shared_hbm)
    n_cb = C // 128
    for idx in nl.affine_range((R // 128) * n_cb):
        rb, cb = divmod(idx, n_cb)
        blk = nl.ndarray((128, 128), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=blk, src=x[rb * 128:(rb + 1) * 128, cb * 128:(cb + 1) * 128])
        sc = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=sc, src=s[cb * 128:(cb + 1) * 128, :])
        tp = nl.ndarray((128, 128), dtype=x.dtype, buffer=nl.psum)
        nisa.nc_transpose(dst=tp, data=blk)
        res = nl.ndarray((128, 128), dtype=x.dtype, buffer=nl.sbuf)
        nisa.tensor_scalar(dst=res, data=tp, op0=nl.multiply, operand0=sc)
        nisa.dma_copy(dst=out[cb * 128:(cb + 1) * 128, rb * 128:(rb + 1) * 128], src=res)
    return out
