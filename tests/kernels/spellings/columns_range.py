# exp(x) one column at a time in the newer `nki` API, the loops written Python `range` (in that API
# an alias of affine_range, nki-language.md section 2): folded like it. Same program as
# tests/golden/lower/nki/columns_new_api.py (reference: column_reference.py there).
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def kernel(x):
  rows, cols = x.shape
  out = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
  for b in range(cols // 64):
    t = nl.ndarray((rows, 64), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x[:, 64 * b:64 * (b + 1)])
    y = nl.ndarray((rows, 64), dtype=nl.float32, buffer=nl.sbuf)
    for c in range(64):
      nisa.activation(dst=y[:, c:c + 1], op=nl.exp, data=t[:, c:c + 1])
    nisa.dma_copy(dst=out[:, 64 * b:64 * (b + 1)], src=y)
  return out
