import nki
import nki.language as nl
import nki.isa as nisa


# A scratch tile declared before the row loop that carries a value from a row to the next (a
# running sum of the rows' exp): unlike per-row scratch it cannot get a copy per row, so jam_rows
# offers no site on the loop. tests/unit/loopnest/jam_rows_test.cpp.
@nki.jit
def kernel(x):
    rows, cols = x.shape
    out = nl.ndarray((128, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    acc = nl.ndarray((128, cols), dtype=nl.float32, buffer=nl.sbuf)
    nisa.memset(dst=acc, value=0.0)
    x_sb = nl.ndarray((128, cols), dtype=x.dtype, buffer=nl.sbuf)
    e_sb = nl.ndarray((128, cols), dtype=nl.float32, buffer=nl.sbuf)
    for r in range(rows // 128):
        nisa.dma_copy(dst=x_sb, src=x[r * 128:(r + 1) * 128, :])
        nisa.activation(dst=e_sb, op=nl.exp, data=x_sb)
        nisa.tensor_tensor(dst=acc, data1=acc, data2=e_sb, op=nl.add)
    nisa.dma_copy(dst=out, src=acc)
    return out
