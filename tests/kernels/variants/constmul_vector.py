import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa

# Every constant multiply of every row tile on the Vector Engine (engine named). Base of the pair
# constmul_vector / constmul_nl.
ROUNDS = 16


@nki.jit
def kernel(x):
  R, C = x.shape
  out = nl.ndarray((R, C), dtype=x.dtype, buffer=nl.shared_hbm)
  for i in nl.affine_range(R // 128):
    t = nl.load(x[i * 128:(i + 1) * 128, :])
    for r in nl.static_range(ROUNDS):
      t = nisa.tensor_scalar(t, op0=nl.multiply, operand0=0.9, engine=nisa.vector_engine)
    nl.store(out[i * 128:(i + 1) * 128, :], value=t)
  return out
