import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x):
  # The K row blocks summed into an SBUF accumulator from `nl.zeros` with `acc += t`. Same program
  # as accsum_add.py, which writes `acc = nl.add(acc, t)` into a fresh tile each block.
  R, C = x.shape
  out = nl.ndarray((128, C), dtype=x.dtype, buffer=nl.shared_hbm)
  acc = nl.zeros((128, C), dtype=nl.float32, buffer=nl.sbuf)
  for k in nl.affine_range(R // 128):
    t = nl.load(x[k * 128:(k + 1) * 128, :])
    acc += t
  nl.store(out, value=acc)
  return out
