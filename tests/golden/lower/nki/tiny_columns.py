import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x):
  # exp(x) + 1 one column at a time, for x of shape [128, 64 * blocks]: the compiler folds the
  # column loop (src/lower loop_folding).
  rows, cols = x.shape
  out = nl.ndarray((rows, cols), dtype=nl.float32, buffer=nl.shared_hbm)
  for b in nl.affine_range(cols // 64):
    t = nl.load(x[:, 64 * b:64 * b + 64])
    y = nl.ndarray((rows, 64), dtype=nl.float32, buffer=nl.sbuf)
    for c in nl.affine_range(64):
      y[:, c:c + 1] = nl.add(nl.exp(t[:, c:c + 1]), 1.0)
    nl.store(out[:, 64 * b:64 * b + 64], value=y)
  return out
