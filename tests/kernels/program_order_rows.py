# Legacy nl style as a course assignment writes it: exp(x) * y per 128-row tile, the kernel compiled
# without the middle end (`@nki.compiler.skip_middle_end_transformations`, put on "so the timings are
# readable"): every engine and queue runs in program order, so each row's loads wait for the
# previous row's store. middle_end removes the decorator; the program is expmul_nisa.py's.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.compiler.skip_middle_end_transformations
@nki.jit
def kernel(x, y):
  R, C = x.shape
  out = nl.ndarray((R, C), dtype=x.dtype, buffer=nl.shared_hbm)
  for r in nl.affine_range(R // 128):
    xt = nl.load(x[r * 128:(r + 1) * 128, :])
    yt = nl.load(y[r * 128:(r + 1) * 128, :])
    e = nisa.activation(op=nl.exp, data=xt)
    z = nisa.tensor_tensor(e, yt, op=nl.multiply)
    nl.store(out[r * 128:(r + 1) * 128, :], value=z)
  return out
