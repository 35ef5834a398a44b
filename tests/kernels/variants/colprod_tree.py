import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa

# The same 15 multiplies as a tree of depth 4 (8, 4, 2, 1 independent products per level): only an
# instruction that waits pays the overhead. Variant of the pair colprod_chain / colprod_tree.
@nki.jit
def kernel(x):
  P, C = x.shape
  out = nl.ndarray((P, 1), dtype=x.dtype, buffer=nl.shared_hbm)
  t = nl.load(x)
  a0 = nisa.tensor_tensor(t[:, 0:1], t[:, 1:2], op=nl.multiply)
  a1 = nisa.tensor_tensor(t[:, 2:3], t[:, 3:4], op=nl.multiply)
  a2 = nisa.tensor_tensor(t[:, 4:5], t[:, 5:6], op=nl.multiply)
  a3 = nisa.tensor_tensor(t[:, 6:7], t[:, 7:8], op=nl.multiply)
  a4 = nisa.tensor_tensor(t[:, 8:9], t[:, 9:10], op=nl.multiply)
  a5 = nisa.tensor_tensor(t[:, 10:11], t[:, 11:12], op=nl.multiply)
  a6 = nisa.tensor_tensor(t[:, 12:13], t[:, 13:14], op=nl.multiply)
  a7 = nisa.tensor_tensor(t[:, 14:15], t[:, 15:16], op=nl.multiply)
  b0 = nisa.tensor_tensor(a0, a1, op=nl.multiply)
  b1 = nisa.tensor_tensor(a2, a3, op=nl.multiply)
  b2 = nisa.tensor_tensor(a4, a5, op=nl.multiply)
  b3 = nisa.tensor_tensor(a6, a7, op=nl.multiply)
  c0 = nisa.tensor_tensor(b0, b1, op=nl.multiply)
  c1 = nisa.tensor_tensor(b2, b3, op=nl.multiply)
  d = nisa.tensor_tensor(c0, c1, op=nl.multiply)
  nl.store(out, value=d)
  return out
