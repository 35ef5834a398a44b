import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa

# 15 one-column multiplies, each depending on the one before: the Vector Engine adds its static
# overhead (~100 cycles) to every such instruction (ARCH2) and a ~60-cycle access request. Base of
# the pair colprod_chain / colprod_tree.
@nki.jit
def kernel(x):
  P, C = x.shape
  out = nl.ndarray((P, 1), dtype=x.dtype, buffer=nl.shared_hbm)
  t = nl.load(x)
  acc = nisa.tensor_tensor(t[:, 0:1], t[:, 1:2], op=nl.multiply)
  for j in nl.static_range(2, C):
    acc = nisa.tensor_tensor(acc, t[:, j:j + 1], op=nl.multiply)
  nl.store(out, value=acc)
  return out
