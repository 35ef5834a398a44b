# Column max and argmax-free column sum over a tall matrix, legacy API: an nl.mgrid pair over a
# (128, 64) tile, a masked ragged last row tile (350 rows), nl.where filling the masked-out rows with
# a neutral value before a partition-axis reduction by nisa.tensor_partition_reduce, running
# results carried in SBUF tiles through nl.sequential_range by nl.maximum / nl.add into `[...]`.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


@nki.jit
def col_max_sum(x):
    n, d = x.shape
    colmax = nl.ndarray((1, d), dtype=nl.float32, buffer=nl.shared_hbm)
    colsum = nl.ndarray((1, d), dtype=nl.float32, buffer=nl.shared_hbm)
    i_p, i_f = nl.mgrid[0:128, 0:d]
    run_max = nl.full((1, d), -1.0e30, dtype=nl.float32, buffer=nl.sbuf)
    run_sum = nl.zeros((1, d), dtype=nl.float32, buffer=nl.sbuf)
    for i in nl.sequential_range((n + 127) // 128):
        valid = i * 128 + i_p < n
        t = nl.load(x[i * 128 + i_p, i_f], mask=valid)
        inside = nisa.iota(i * 128 + i_p + 0 * i_f, dtype=nl.float32) < n
        t_max = nl.where(inside, t, -1.0e30)
        t_sum = nl.where(inside, t, 0.0)
        run_max[...] = nl.maximum(run_max, nisa.tensor_partition_reduce(np.max, t_max))
        run_sum[...] = nl.add(run_sum, nisa.tensor_partition_reduce(np.add, t_sum))
    nl.store(colmax, value=run_max)
    nl.store(colsum, value=run_sum)
    return colmax, colsum
