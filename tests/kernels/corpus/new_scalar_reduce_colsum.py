# Sums of squares both ways in the newer `nki` API: nisa.tensor_scalar_reduce(dst=, data=,
# op0=nl.multiply, operand0=, reduce_op=nl.add, reduce_res=) scales each row tile and reduces it
# along the free axis in one Vector Engine instruction; nisa.tensor_partition_reduce(dst=, op=,
# data=) reduces across the partitions (the column sums of the tile), accumulated over the row
# tiles in SBUF with nisa.tensor_tensor(dst=acc, data1=acc, ...), acc zeroed by nisa.memset.
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def sums_of_squares(x, scale):
    M, N = x.shape
    row_out = nl.ndarray((M, 1), dtype=nl.float32, buffer=nl.shared_hbm)
    col_out = nl.ndarray((1, N), dtype=nl.float32, buffer=nl.shared_hbm)
    acc = nl.ndarray((1, N), dtype=nl.float32, buffer=nl.sbuf)
    nisa.memset(dst=acc, value=0.0)
    for r in nl.sequential_range(M // 128):
        t = nl.ndarray((128, N), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[r * 128:(r + 1) * 128, :])
        sq = nl.ndarray((128, N), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=sq, data1=t, data2=t, op=nl.multiply)
        scaled = nl.ndarray((128, N), dtype=nl.float32, buffer=nl.sbuf)
        rs = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_scalar_reduce(dst=scaled, data=sq, op0=nl.multiply, operand0=scale, reduce_op=nl.add,
                                  reduce_res=rs)
        nisa.dma_copy(dst=row_out[r * 128:(r + 1) * 128, :], src=rs)
        cs = nl.ndarray((1, N), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_partition_reduce(dst=cs, op=nl.add, data=sq)
        nisa.tensor_tensor(dst=acc, data1=acc, data2=cs, op=nl.add)
    nisa.dma_copy(dst=col_out, src=acc)
    return row_out, col_out


kernel = sums_of_squares
