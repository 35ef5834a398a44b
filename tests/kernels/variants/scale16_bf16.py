import nki
import nki.language as nl
import nki.isa as nisa

# x <- 0.9 x + 0.05 on bf16 tiles on the Vector Engine: max(MIN_II, N) on NC-v2 whatever the dtype
# (ISA tensor_scalar); 4x faster on NC-v3 (performance mode: 16-bit SBUF in and out, contiguous,
# ARCH3). Base of the pair scale16_bf16 / scale16_fp32.
ROUNDS = 8


@nki.jit
def kernel(x):
  R, C = x.shape
  out = nl.ndarray((R, C), dtype=x.dtype, buffer=nl.shared_hbm)
  for i in range(R // 128):
    t = nl.ndarray((128, C), dtype=nl.bfloat16, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x[i * 128:(i + 1) * 128, :])
    for r in range(ROUNDS):
      nisa.tensor_scalar(dst=t, data=t, op0=nl.multiply, operand0=0.9, op1=nl.add, operand1=0.05,
                         engine=nisa.vector_engine)
    nisa.dma_copy(dst=out[i * 128:(i + 1) * 128, :], src=t)
  return out
