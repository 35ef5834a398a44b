# Log-softmax with the composite nl.softmax, then a masked row maximum with the legacy
# nisa.select_reduce (keep the elements whose predicate tile is set, else a fill value; the row max
# goes to reduce_res), and a kernel that returns a tuple of two outputs.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x, keep):
    M, N = x.shape
    logp = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    best = nl.ndarray((M, 1), dtype=nl.float32, buffer=nl.shared_hbm)
    for i in nl.affine_range(M // 128):
        t = nl.load(x[i * 128:(i + 1) * 128, :])
        k = nl.load(keep[i * 128:(i + 1) * 128, :])
        lp = nl.log(nl.softmax(t, axis=1))
        nl.store(logp[i * 128:(i + 1) * 128, :], value=lp)
        row_max = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.select_reduce(predicate=k, on_true=lp, on_false=-1000.0, reduce_res=row_max, reduce_op=np.max)
        nl.store(best[i * 128:(i + 1) * 128, :], value=row_max)
    return logp, best
