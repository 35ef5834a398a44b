import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x):
  # x.T per [128, 128] block by a load, `nisa.nc_transpose` on the Tensor Engine and a PSUM-to-SBUF
  # copy. Computes what transpose_dma.py computes with `nl.load_transpose2d`.
  R, C = x.shape
  out = nl.ndarray((C, R), dtype=x.dtype, buffer=nl.shared_hbm)
  for r in nl.affine_range(R // 128):
    t = nl.load(x[r * 128:(r + 1) * 128, :])
    tp = nisa.nc_transpose(t)
    ts = nl.copy(tp, dtype=x.dtype)
    nl.store(out[:, r * 128:(r + 1) * 128], value=ts)
  return out
