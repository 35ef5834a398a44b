import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa

# The same rounds as 4 instructions of 512 columns each. Variant of the pair chunks_narrow /
# chunks_wide.
ROUNDS = 8
W = 512


@nki.jit
def kernel(x):
  R, C = x.shape
  out = nl.ndarray((R, C), dtype=x.dtype, buffer=nl.shared_hbm)
  for i in nl.affine_range(R // 128):
    t = nl.load(x[i * 128:(i + 1) * 128, :])
    for r in nl.static_range(ROUNDS):
      for c in nl.static_range(C // W):
        t[:, c * W:(c + 1) * W] = nisa.tensor_scalar(t[:, c * W:(c + 1) * W], op0=nl.multiply, operand0=0.9,
                                                     op1=nl.add, operand1=0.05, engine=nisa.vector_engine)
    nl.store(out[i * 128:(i + 1) * 128, :], value=t)
  return out
