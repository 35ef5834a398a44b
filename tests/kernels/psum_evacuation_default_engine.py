import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x):
  # exp(x) + 1 with exp written into PSUM and the + 1 reading it back: a tensor_scalar whose engine
  # the kernel leaves to the compiler, reading PSUM (a PSUM evacuation; docs/simulator.md, Engine
  # choice), for x of shape [128, 512 * blocks].
  rows, cols = x.shape
  out = nl.ndarray((rows, cols), dtype=nl.float32, buffer=nl.shared_hbm)
  for b in nl.affine_range(cols // 512):
    t = nl.load(x[:, 512 * b:512 * b + 512])
    e = nl.ndarray((rows, 512), dtype=nl.float32, buffer=nl.psum)
    e[...] = nisa.activation(op=nl.exp, data=t)
    y = nisa.tensor_scalar(e, nl.add, 1.0)
    nl.store(out[:, 512 * b:512 * b + 512], value=y)
  return out
