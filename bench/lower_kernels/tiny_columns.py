import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x):
  # A loop of tiny per-column instructions (the compiler folds it, src/lower loop_folding):
  # for each [128 x 64] block, 64 one-column exp + add pairs, then one store of the block.
  out = nl.ndarray((128, 8192), dtype=nl.float32, buffer=nl.shared_hbm)
  for b in nl.affine_range(128):
    t = nl.load(x[:, 64 * b:64 * b + 64])
    y = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.sbuf)
    for c in nl.affine_range(64):
      e = nl.exp(t[:, c:c + 1])
      y[:, c:c + 1] = nl.add(e, 1.0)
    nl.store(out[:, 64 * b:64 * b + 64], value=y)
  return out
