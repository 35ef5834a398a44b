import nki
import nki.language as nl
import nki.isa as nisa

# 1 + x^2 on the Vector Engine, then rsqrt as a tensor_scalar step with a dummy operand, its engine
# left to the compiler, which picks GpSimd (nki-language.md 9.1, 8.3 "or GpSimd (rsqrt)"): "4x
# lower throughput than ScalarE" (SHARED). Expected before simulating (session 26): GpSimd + ScalarE
# time 4 x (4N + start) GpSimd cycles against rsqrt_act_scalar.py's 4N ScalarE cycles and one 1.14
# us function table load, ~3.4x on trn1 (both at 1.4 GHz); until the trace named the step it cost
# 150 + N, ~0.9x (inverted). Base of the pair rsqrt_ts_gpsimd / rsqrt_act_scalar.
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
    nisa.tensor_scalar(dst=r, data=d, op0=nl.rsqrt, operand0=0.0)
    nisa.dma_copy(dst=out[i * 128:(i + 1) * 128, :], src=r)
  return out
