import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.compiler.skip_middle_end_transformations
@nki.jit
def kernel(x):
  # exp(x) + 1 one column at a time: skip_middle_end_transformations: program order runs.
  out = nl.ndarray((128, 1024), dtype=nl.float32, buffer=nl.shared_hbm)
  for b in nl.affine_range(16):
    t = nl.load(x[:, 64 * b:64 * b + 64])
    y = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.sbuf)
    for c in nl.affine_range(64):
      y[:, c:c + 1] = nl.add(nl.exp(t[:, c:c + 1]), 1.0)
    nl.store(out[:, 64 * b:64 * b + 64], value=y)
  return out
