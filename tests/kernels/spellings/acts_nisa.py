import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x):
  # Four activation functions per row tile spelt as the ISA calls (`nisa.activation(op=...)`).
  # Same program as acts_nl.py.
  R, C = x.shape
  out = nl.ndarray((R, C), dtype=x.dtype, buffer=nl.shared_hbm)
  for r in nl.affine_range(R // 128):
    xt = nl.load(x[r * 128:(r + 1) * 128, :])
    t = nisa.activation(op=nl.tanh, data=xt)
    s = nisa.activation(op=nl.sigmoid, data=t)
    q = nisa.activation(op=nl.rsqrt, data=s)
    y = nisa.activation(op=nl.gelu_apprx_sigmoid, data=q)
    nl.store(out[r * 128:(r + 1) * 128, :], value=y)
  return out
