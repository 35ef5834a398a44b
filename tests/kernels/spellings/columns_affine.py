# exp(x) one column at a time in the newer `nki` API, the loops written `nl.affine_range`: the
# compiler folds the column loop (src/lower loop_folding). Same program as columns_range.py.
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def kernel(x):
  rows, cols = x.shape
  out = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
  for b in nl.affine_range(cols // 64):
    t = nl.ndarray((rows, 64), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x[:, 64 * b:64 * (b + 1)])
    y = nl.ndarray((rows, 64), dtype=nl.float32, buffer=nl.sbuf)
    for c in nl.affine_range(64):
      nisa.activation(dst=y[:, c:c + 1], op=nl.exp, data=t[:, c:c + 1])
    nisa.dma_copy(dst=out[:, 64 * b:64 * (b + 1)], src=y)
  return out
