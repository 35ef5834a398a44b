import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x):
  # The K row blocks summed into an SBUF accumulator zeroed by `nisa.memset` on the Vector Engine,
  # then `acc += t`. Same program as accsum_iadd.py, whose `nl.zeros` leaves the memset's engine to
  # the compiler (GpSimd here): the ISA prices a memset max(MIN_II, N) on either engine, in its
  # own cycles ("Vector (or GpSimd)"); GPSIMD_START is published for iota / affine_select only.
  R, C = x.shape
  out = nl.ndarray((128, C), dtype=x.dtype, buffer=nl.shared_hbm)
  acc = nisa.memset(shape=(128, C), value=0.0, dtype=nl.float32, engine=nisa.vector_engine)
  for k in nl.affine_range(R // 128):
    t = nl.load(x[k * 128:(k + 1) * 128, :])
    acc += t
  nl.store(out, value=acc)
  return out
