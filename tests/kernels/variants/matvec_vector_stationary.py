import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa

# The NV vectors as stationary, the matrix moving in 512-column pieces: max(min(64, NV), 512) = 512
# cycles per 512 columns, 128 per 128 rows of A (PERF Opt #7: "vector as stationary -> one MM per
# ~128 cycles"). Variant of the pair matvec_matrix_stationary / matvec_vector_stationary.
@nki.jit
def kernel(at, v):
  K, M = at.shape
  _, NV = v.shape
  out = nl.ndarray((NV, M), dtype=nl.float32, buffer=nl.shared_hbm)
  a = nl.load(at)
  vt = nl.load(v)
  for n in nl.affine_range(M // 512):
    p = nisa.nc_matmul(vt, a[:, n * 512:(n + 1) * 512])
    s = nl.copy(p)
    nl.store(out[:, n * 512:(n + 1) * 512], value=s)
  return out
