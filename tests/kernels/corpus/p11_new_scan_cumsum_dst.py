# Row-wise cumulative sum in the newer `nki` API: nisa.tensor_tensor_scan(dst=, data0=ones,
# data1=x, initial=carry, op0=multiply, op1=add) per column chunk, the carry a declared (128, 1)
# tile refreshed by tensor_copy(dst=carry, src=chunk[:, last]) inside a sequential_range.
import nki
import nki.isa as nisa
import nki.language as nl
import numpy as np


@nki.jit
def cumsum_rows(x):
    rows, cols = x.shape
    CH = 128
    out = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    ones = nl.ndarray((128, CH), dtype=nl.float32, buffer=nl.sbuf)
    nisa.memset(dst=ones, value=1.0)
    for r in nl.affine_range(rows // 128):
        carry = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.memset(dst=carry, value=0.0)
        for c in nl.sequential_range(cols // CH):
            xt = nl.ndarray((128, CH), dtype=nl.float32, buffer=nl.sbuf)
            nisa.dma_copy(dst=xt, src=x[r * 128:(r + 1) * 128, c * CH:(c + 1) * CH])
            s = nl.ndarray((128, CH), dtype=nl.float32, buffer=nl.sbuf)
            nisa.tensor_tensor_scan(dst=s, data0=ones, data1=xt, initial=carry, op0=np.multiply, op1=np.add)
            nisa.tensor_copy(dst=carry, src=s[:, CH - 1:CH])
            nisa.dma_copy(dst=out[r * 128:(r + 1) * 128, c * CH:(c + 1) * CH], src=s)
    return out
