import neuronxcc.nki as nki
import neuronxcc.nki.language as nl

# The same constant multiplies as nl.multiply(tile, constant), the engine left to the compiler
# (a tensor_scalar of unknown engine). Variant of the pair constmul_vector / constmul_nl.
ROUNDS = 16


@nki.jit
def kernel(x):
  R, C = x.shape
  out = nl.ndarray((R, C), dtype=x.dtype, buffer=nl.shared_hbm)
  for i in nl.affine_range(R // 128):
    t = nl.load(x[i * 128:(i + 1) * 128, :])
    for r in nl.static_range(ROUNDS):
      t = nl.multiply(t, 0.9)
    nl.store(out[i * 128:(i + 1) * 128, :], value=t)
  return out
