import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa

# Half the row tiles on the Vector Engine, half on the Scalar Engine (an identity activation with
# scale and bias: "scale multiply and bias add are free", ISA activation). The engines run in
# parallel (ARCH2). Variant of the pair split_vector_only / split_vector_scalar.
ROUNDS = 8


@nki.jit
def kernel(x):
  R, C = x.shape
  out = nl.ndarray((R, C), dtype=x.dtype, buffer=nl.shared_hbm)
  bias = nl.full((128, 1), 0.05, dtype=nl.float32, buffer=nl.sbuf)
  for j in nl.affine_range(R // 256):
    a = nl.load(x[j * 256:j * 256 + 128, :])
    b = nl.load(x[j * 256 + 128:(j + 1) * 256, :])
    for r in nl.static_range(ROUNDS):
      a = nisa.tensor_scalar(a, op0=nl.multiply, operand0=0.9, op1=nl.add, operand1=0.05,
                             engine=nisa.vector_engine)
      b = nisa.activation(op=nl.copy, data=b, scale=0.9, bias=bias)
    nl.store(out[j * 256:j * 256 + 128, :], value=a)
    nl.store(out[j * 256 + 128:(j + 1) * 256, :], value=b)
  return out
