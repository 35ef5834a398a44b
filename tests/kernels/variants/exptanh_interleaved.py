import nki
import nki.language as nl
import nki.isa as nisa

# Per row tile an exp then a tanh: ScalarE switches its function table twice per tile (the 1.33 us
# segment before an activation, trainium-measurements 1.6). Base of the pair exptanh_interleaved /
# exptanh_grouped.
@nki.jit
def kernel(x):
  R, C = x.shape
  out = nl.ndarray((R, C), dtype=x.dtype, buffer=nl.shared_hbm)
  for i in nl.sequential_range(R // 128):
    t = nl.ndarray((128, C), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x[i * 128:(i + 1) * 128, :])
    e = nl.ndarray((128, C), dtype=x.dtype, buffer=nl.sbuf)
    nisa.activation(dst=e, op=nl.exp, data=t, scale=-1.0)
    h = nl.ndarray((128, C), dtype=x.dtype, buffer=nl.sbuf)
    nisa.activation(dst=h, op=nl.tanh, data=e)
    nisa.dma_copy(dst=out[i * 128:(i + 1) * 128, :], src=h)
  return out
