import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x):
  # The K row blocks summed with `acc = nl.add(acc, t)` (a fresh tile each block) from `nl.zeros`,
  # in a `sequential_range`: the name is carried from one iteration to the next, which an
  # `affine_range` does not allow (only accumulation, `+=`, may cross its iterations; LANG). Same
  # program as accsum_iadd.py: its adds are one chain either way.
  R, C = x.shape
  out = nl.ndarray((128, C), dtype=x.dtype, buffer=nl.shared_hbm)
  acc = nl.zeros((128, C), dtype=nl.float32, buffer=nl.sbuf)
  for k in nl.sequential_range(R // 128):
    t = nl.load(x[k * 128:(k + 1) * 128, :])
    acc = nl.add(acc, t)
  nl.store(out, value=acc)
  return out
