import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa

# The same tile loaded and stored as 16 transfers of 8 partitions each: each moves on one DMA engine
# (DMAO) and pays its own ~1300 ns fixed cost (DMABW). Variant of the pair rows_one_transfer /
# rows_sixteen_transfers.
@nki.jit
def kernel(x):
  P, C = x.shape
  out = nl.ndarray((P, C), dtype=x.dtype, buffer=nl.shared_hbm)
  t = nl.ndarray((P, C), dtype=x.dtype, buffer=nl.sbuf)
  for g in nl.affine_range(P // 8):
    t[g * 8:(g + 1) * 8, :] = nl.load(x[g * 8:(g + 1) * 8, :])
  y = nisa.tensor_scalar(t, op0=nl.multiply, operand0=2.0, op1=nl.add, operand1=1.0)
  for g in nl.affine_range(P // 8):
    nl.store(out[g * 8:(g + 1) * 8, :], value=y[g * 8:(g + 1) * 8, :])
  return out
