import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa

# The long operand (the matrix) as stationary, the NV vectors moving: max(min(64, 128), NV) = 64
# cycles per 128 rows of A (ISA nc_matmul; PERF Opt #7 "put the long operand in stationary"). Each
# [128, NV] result is stored through a transposing view of the output. Base of the pair
# matvec_matrix_stationary / matvec_vector_stationary.
@nki.jit
def kernel(at, v):
  K, M = at.shape
  _, NV = v.shape
  out = nl.ndarray((NV, M), dtype=nl.float32, buffer=nl.shared_hbm)
  a = nl.load(at)
  vt = nl.load(v)
  ip = nl.arange(128)[:, None]
  jf = nl.arange(NV)[None, :]
  for m in nl.affine_range(M // 128):
    p = nisa.nc_matmul(a[:, m * 128:(m + 1) * 128], vt)
    s = nl.copy(p)
    nl.store(out[jf, m * 128 + ip], value=s)
  return out
