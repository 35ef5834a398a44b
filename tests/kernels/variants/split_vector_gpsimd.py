import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa

# Half the row tiles on the Vector Engine, half on GpSimd (engine named). On NC-v2 VectorE and
# GpSimd cannot access SBUF at the same time (the compiler serializes them, ARCH2), so the split
# gains nothing there; NC-v3 lifts the limit (ARCH3). Variant of the pair split_vector_only /
# split_vector_gpsimd.
ROUNDS = 8


@nki.jit
def kernel(x):
  R, C = x.shape
  out = nl.ndarray((R, C), dtype=x.dtype, buffer=nl.shared_hbm)
  for j in nl.affine_range(R // 256):
    a = nl.load(x[j * 256:j * 256 + 128, :])
    b = nl.load(x[j * 256 + 128:(j + 1) * 256, :])
    for r in nl.static_range(ROUNDS):
      a = nisa.tensor_scalar(a, op0=nl.multiply, operand0=0.9, op1=nl.add, operand1=0.05,
                             engine=nisa.vector_engine)
      b = nisa.tensor_scalar(b, op0=nl.multiply, operand0=0.9, op1=nl.add, operand1=0.05,
                             engine=nisa.gpsimd_engine)
    nl.store(out[j * 256:j * 256 + 128, :], value=a)
    nl.store(out[j * 256 + 128:(j + 1) * 256, :], value=b)
  return out
