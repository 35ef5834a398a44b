import nki
import nki.language as nl
import nki.isa as nisa

# The same rounds on fp32 tiles (the DMAs cast, DMAO): a tensor_tensor of two fp32 SBUF tiles is
# 2N cycles (ISA tensor_tensor). Variant of the pair mul16_bf16 / mul16_fp32.
ROUNDS = 6


@nki.jit
def kernel(x, y):
  R, C = x.shape
  out = nl.ndarray((R, C), dtype=x.dtype, buffer=nl.shared_hbm)
  for i in range(R // 128):
    z = nl.ndarray((128, C), dtype=nl.float32, buffer=nl.sbuf)
    yt = nl.ndarray((128, C), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=z, src=x[i * 128:(i + 1) * 128, :])
    nisa.dma_copy(dst=yt, src=y[i * 128:(i + 1) * 128, :])
    for r in range(ROUNDS):
      nisa.tensor_tensor(dst=z, data1=z, data2=yt, op=nl.multiply)
    nisa.dma_copy(dst=out[i * 128:(i + 1) * 128, :], src=z)
  return out
