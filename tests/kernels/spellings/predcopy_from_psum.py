import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(a, b, x):
  # The product copied into x where x > 0.5, straight from PSUM: src in PSUM, predicate in SBUF,
  # max(MIN_II, N) (ISA tensor_copy_predicated). predcopy_from_sbuf.py evacuates the product to
  # SBUF first; its predicated copy then reads both from SBUF, max(MIN_II, 2N).
  out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
  ta = nl.load(a)
  tb = nl.load(b)
  tx = nl.load(x)
  prod = nisa.nc_matmul(ta, tb)
  pred = nl.greater(tx, 0.5, dtype=nl.uint8)
  dst = nl.copy(tx)
  nisa.tensor_copy_predicated(src=prod, dst=dst, predicate=pred)
  nl.store(out, value=dst)
  return out
