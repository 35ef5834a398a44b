import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x):
  # x.T per [128, 128] block by `nisa.dma_transpose` of the HBM block. Same program as
  # transpose_dma.py (`nl.load_transpose2d`: "DMA load ... followed by a 2-D transpose",
  # nki-language.md 7.1; dma_transpose, 8.4): both are one DMA transpose.
  R, C = x.shape
  out = nl.ndarray((C, R), dtype=x.dtype, buffer=nl.shared_hbm)
  for r in nl.affine_range(R // 128):
    t = nisa.dma_transpose(x[r * 128:(r + 1) * 128, :])
    nl.store(out[:, r * 128:(r + 1) * 128], value=t)
  return out
