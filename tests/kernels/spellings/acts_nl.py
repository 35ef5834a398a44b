import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x):
  # Four activation functions per row tile spelt with the nl math API (`nl.tanh`, `nl.sigmoid`,
  # `nl.rsqrt`, `nl.gelu_apprx_sigmoid`). Same program as acts_nisa.py: each transcendental is "a
  # single activation instruction (same as `nisa.activation(op=f, data=x)`)" (nki-language.md 7.4).
  R, C = x.shape
  out = nl.ndarray((R, C), dtype=x.dtype, buffer=nl.shared_hbm)
  for r in nl.affine_range(R // 128):
    xt = nl.load(x[r * 128:(r + 1) * 128, :])
    y = nl.gelu_apprx_sigmoid(nl.rsqrt(nl.sigmoid(nl.tanh(xt))))
    nl.store(out[r * 128:(r + 1) * 128, :], value=y)
  return out
