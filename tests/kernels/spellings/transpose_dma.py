import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x):
  # x.T per [128, 128] block by `nl.load_transpose2d` (a DMA transpose). Computes what
  # transpose_pe.py computes with a load, a Tensor Engine transpose and a PSUM-to-SBUF copy; the two
  # cost what the DMA transpose and the PE transpose are published to cost, not the same.
  R, C = x.shape
  out = nl.ndarray((C, R), dtype=x.dtype, buffer=nl.shared_hbm)
  for r in nl.affine_range(R // 128):
    t = nl.load_transpose2d(x[r * 128:(r + 1) * 128, :])
    nl.store(out[:, r * 128:(r + 1) * 128], value=t)
  return out
