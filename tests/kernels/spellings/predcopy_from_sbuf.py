import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(a, b, x):
  # The product evacuated from PSUM to SBUF, then copied into x where x > 0.5: src and predicate
  # both in SBUF, max(MIN_II, 2N) (ISA tensor_copy_predicated), against N from PSUM
  # (predcopy_from_psum.py), on top of the evacuation.
  out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
  ta = nl.load(a)
  tb = nl.load(b)
  tx = nl.load(x)
  prod = nl.copy(nisa.nc_matmul(ta, tb))
  pred = nl.greater(tx, 0.5, dtype=nl.uint8)
  dst = nl.copy(tx)
  nisa.tensor_copy_predicated(src=prod, dst=dst, predicate=pred)
  nl.store(out, value=dst)
  return out
