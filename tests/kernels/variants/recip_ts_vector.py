import nki
import nki.language as nl
import nki.isa as nisa

# 1 + x^2 on the Vector Engine, then the reciprocal as a tensor_scalar step with a dummy operand
# (nki-language.md 9.1) kept on the Vector Engine: the VectorE reciprocal, max(MIN_II, 8N) by the ISA
# ("VectorE ~8x lower throughput for large tiles", SHARED; the model's calibrated 3N). Expected
# before simulating (session 26): VectorE + ScalarE time 2N + N + 3N = 6N VectorE cycles against
# recip_scalar.py's 3N VectorE + N ScalarE, ~1.6x at the clocks (8N: ~2.7x); until the trace named
# the step (alu=other) it cost N, ~1.05x. Base of the pair recip_ts_vector / recip_scalar.
@nki.jit
def kernel(x):
  R, C = x.shape
  out = nl.ndarray((R, C), dtype=x.dtype, buffer=nl.shared_hbm)
  for i in range(R // 128):
    t = nl.ndarray((128, C), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x[i * 128:(i + 1) * 128, :])
    s = nl.ndarray((128, C), dtype=x.dtype, buffer=nl.sbuf)
    nisa.tensor_tensor(dst=s, data1=t, data2=t, op=nl.multiply)
    d = nl.ndarray((128, C), dtype=x.dtype, buffer=nl.sbuf)
    nisa.tensor_scalar(dst=d, data=s, op0=nl.add, operand0=1.0, engine=nisa.vector_engine)
    r = nl.ndarray((128, C), dtype=x.dtype, buffer=nl.sbuf)
    nisa.tensor_scalar(dst=r, data=d, op0=nl.reciprocal, operand0=0.0, engine=nisa.vector_engine)
    nisa.dma_copy(dst=out[i * 128:(i + 1) * 128, :], src=r)
  return out
