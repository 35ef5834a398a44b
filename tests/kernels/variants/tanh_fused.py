import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa

# tanh(0.5 x + 0.1) as one activation per round: scale and bias are free (ISA activation; PERF
# Opt #6: "exp(x*scale+bias) as one instruction is 3x faster than three"). Base of the pair
# tanh_fused / tanh_three.
ROUNDS = 6


@nki.jit
def kernel(x):
  R, C = x.shape
  out = nl.ndarray((R, C), dtype=x.dtype, buffer=nl.shared_hbm)
  bias = nl.full((128, 1), 0.1, dtype=nl.float32, buffer=nl.sbuf)
  for i in nl.affine_range(R // 128):
    t = nl.load(x[i * 128:(i + 1) * 128, :])
    for r in nl.static_range(ROUNDS):
      t = nisa.activation(op=nl.tanh, data=t, scale=0.5, bias=bias)
    nl.store(out[i * 128:(i + 1) * 128, :], value=t)
  return out
