import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x, y):
  # exp(x) * y per row tile, the transfers spelt `nisa.dma_copy(dst=..., src=...)` into SBUF
  # buffers. Same program as expmul_nisa.py, which spells them `nl.load` / `nl.store`.
  R, C = x.shape
  out = nl.ndarray((R, C), dtype=x.dtype, buffer=nl.shared_hbm)
  for r in nl.affine_range(R // 128):
    xt = nl.ndarray((128, C), dtype=x.dtype, buffer=nl.sbuf)
    yt = nl.ndarray((128, C), dtype=y.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=xt, src=x[r * 128:(r + 1) * 128, :])
    nisa.dma_copy(dst=yt, src=y[r * 128:(r + 1) * 128, :])
    e = nisa.activation(op=nl.exp, data=xt)
    z = nisa.tensor_tensor(e, yt, op=nl.multiply)
    nisa.dma_copy(dst=out[r * 128:(r + 1) * 128, :], src=z)
  return out
