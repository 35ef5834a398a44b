import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x):
  # Sum of the row tiles, accumulated on chip: VectorE adds each loaded tile into an SBUF
  # accumulator, and one store writes it. Computes what rowsum_dma_accumulate.py computes.
  R, C = x.shape
  out = nl.ndarray((128, C), dtype=x.dtype, buffer=nl.shared_hbm)
  acc = nl.load(x[0:128, :])
  for r in nl.sequential_range(1, R // 128):
    t = nl.load(x[r * 128:(r + 1) * 128, :])
    acc = nisa.tensor_tensor(acc, t, op=nl.add)
  nl.store(out, value=acc)
  return out
