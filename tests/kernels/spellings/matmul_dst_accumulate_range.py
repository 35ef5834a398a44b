# xT.T @ w in the newer `nki` API with every loop written as Python `range`: in that API the loop
# kinds are aliases of `range` (all static loops are unrolled at specialization; affine_range is
# deprecated to plain `range` in NKI 0.7; /work/shared/docs/nki-language.md section 2). Same
# program as matmul_dst_accumulate.py, which writes them `nl.affine_range`.
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def kernel(xT, w):
    K, M = xT.shape
    N = w.shape[1]
    KT = K // 128
    out = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    xs = nl.ndarray((128, KT, M), dtype=xT.dtype, buffer=nl.sbuf)
    ws = nl.ndarray((128, KT, N), dtype=w.dtype, buffer=nl.sbuf)
    for kb in range(KT):
        nisa.dma_copy(dst=xs[:, kb, :], src=xT[kb * 128:(kb + 1) * 128, :])
        nisa.dma_copy(dst=ws[:, kb, :], src=w[kb * 128:(kb + 1) * 128, :])
    for mb in range(M // 128):
        acc = nl.ndarray((128, N), dtype=nl.float32, buffer=nl.psum)
        for kb in range(KT):
            nisa.nc_matmul(dst=acc, stationary=xs[:, kb, mb * 128:(mb + 1) * 128], moving=ws[:, kb, :])
        res = nl.ndarray((128, N), dtype=nl.float32, buffer=nl.sbuf)
        # The PSUM evacuation on ScalarE, as the legacy twin's compiler-placed copy (NKI 0.6 has no
        # tensor_copy on NeuronCore-v2's Scalar Engine: nki-language.md 12.2).
        nisa.activation(dst=res, op=nl.copy, data=acc)
        nisa.dma_copy(dst=out[mb * 128:(mb + 1) * 128, :], src=res)
    return out
