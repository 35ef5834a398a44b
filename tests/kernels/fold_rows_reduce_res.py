# x (128, 2048): the first 64 rows, in 512-column chunks, each exp'd with its row sum accumulated
# by the activation itself (reduce_res, one [64, 1] column per chunk). The loop looks elementwise
# on 64 partitions, but the sum runs along the free axis: fold_rows would put the two halves of a
# row on different partitions and sum half rows, so it is not offered.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x):
    rows, cols = x.shape
    half = rows // 2
    out = nl.ndarray((half, cols), dtype=nl.float32, buffer=nl.shared_hbm)
    sums = nl.ndarray((half, 4), dtype=nl.float32, buffer=nl.shared_hbm)
    part = nl.ndarray((4, nl.par_dim(half), 1), dtype=nl.float32, buffer=nl.sbuf)
    for c in nl.affine_range(4):
        t = nl.load(x[0:half, c * 512:(c + 1) * 512])
        e = nisa.activation(op=nl.exp, data=t, reduce_op=nl.add, reduce_res=part[c])
        nl.store(out[0:half, c * 512:(c + 1) * 512], value=e)
    for c in nl.affine_range(4):
        nl.store(sums[0:half, c:c + 1], value=part[c])
    return out, sums
