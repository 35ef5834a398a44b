import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x):
  # The running max of the K fp16 row blocks spelt `acc[...] = nl.loop_reduce(t, op=np.max,
  # loop_indices=[k])` (the tool-generated spelling: "each execution does dest = op(dest, x)", the
  # first writes x; nki-language.md 7.7, 3.6). Same program as accmax16_tensor_tensor.py.
  R, C = x.shape
  out = nl.ndarray((128, C), dtype=x.dtype, buffer=nl.shared_hbm)
  acc = nl.ndarray((128, C), dtype=x.dtype, buffer=nl.sbuf)
  for k in nl.sequential_range(R // 128):
    t = nl.load(x[k * 128:(k + 1) * 128, :])
    acc[...] = nl.loop_reduce(t, op=np.max, loop_indices=[k], dtype=x.dtype)
  nl.store(out, value=acc)
  return out
