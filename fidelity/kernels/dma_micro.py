# DMA micro-benchmarks (Trn2, BF16), trainium-measurements.md §1.6.
# New NKI API.
import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def dge_mixed(x):
  """aws-neuron/neuron-agentic-development@1598b060 .../investigations/dma_efficiency.md:
  16 column tiles of x [128, F/16], each loaded and stored, 4 tiles per DGE mode (none, swdge,
  hwdge, unknown), plus 4 HBM->SBUF transposed loads and 4 SBUF->SBUF transposes of [128, 128]."""
  P, F = x.shape
  TILE_F = F // 16
  out = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.shared_hbm)
  modes = [nisa.dge_mode.none, nisa.dge_mode.swdge, nisa.dge_mode.hwdge, nisa.dge_mode.unknown]
  for i in range(16):
    t = nl.ndarray((P, TILE_F), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x[:, i * TILE_F:(i + 1) * TILE_F], dge_mode=modes[i // 4])
    nisa.dma_copy(dst=out[:, i * TILE_F:(i + 1) * TILE_F], src=t, dge_mode=modes[i // 4])
  for i in range(4):
    xt = nl.ndarray((128, 128), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_transpose(dst=xt, src=x[:, i * 128:(i + 1) * 128])
    xtt = nl.ndarray((128, 128), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_transpose(dst=xtt, src=xt)
  return out


@nki.jit
def load_exp_store(x):
  """aws-neuron-sdk@81ce03ae nki/get-started/about/nki-dma-overview.rst (figures
  nki-dma-intro-3.png for x [4, 4096] and nki-dma-intro-5.png for x [128, 128]): one HBM->SBUF
  transfer, an exp on the Scalar Engine, one SBUF->HBM transfer."""
  P, F = x.shape
  out = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.shared_hbm)
  t = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.sbuf)
  nisa.dma_copy(dst=t, src=x)
  e = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.sbuf)
  nisa.activation(dst=e, op=nl.exp, data=t)
  nisa.dma_copy(dst=out, src=e)
  return out
