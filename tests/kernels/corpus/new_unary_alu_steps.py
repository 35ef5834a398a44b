# The newer `nki` API with unary ALU operators as tensor_scalar steps (nki-language.md 9.1: rsqrt,
# reciprocal and abs take a dummy operand): rsqrt on GpSimd as op0, a reciprocal as op1 after an
# add, abs on the Scalar Engine; destination-first calls throughout.
# out = x * rsqrt(x*x + 1) + 1 / (x*x + 1) - |x|
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def kernel(x):
    rows, cols = x.shape
    out = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    for t in nl.affine_range(rows // 128):
        xt = nl.ndarray((128, cols), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=xt, src=x[t * 128:(t + 1) * 128, :])
        sq = nl.ndarray((128, cols), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=sq, data1=xt, data2=xt, op=nl.multiply)
        d2 = nl.ndarray((128, cols), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_scalar(dst=d2, data=sq, op0=nl.add, operand0=1.0)
        inv = nl.ndarray((128, cols), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_scalar(dst=inv, data=d2, op0=nl.rsqrt, operand0=0.0, engine=nisa.gpsimd_engine)
        rec = nl.ndarray((128, cols), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_scalar(dst=rec, data=sq, op0=nl.add, operand0=1.0, op1=nl.reciprocal, operand1=0.0)
        mag = nl.ndarray((128, cols), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_scalar(dst=mag, data=xt, op0=nl.abs, operand0=0.0, engine=nisa.scalar_engine)
        y = nl.ndarray((128, cols), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=y, data1=xt, data2=inv, op=nl.multiply)
        nisa.tensor_tensor(dst=y, data1=y, data2=rec, op=nl.add)
        nisa.tensor_tensor(dst=y, data1=y, data2=mag, op=nl.subtract)
        nisa.dma_copy(dst=out[t * 128:(t + 1) * 128, :], src=y)
    return out
