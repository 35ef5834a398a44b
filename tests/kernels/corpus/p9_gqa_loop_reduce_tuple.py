import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def row_logsumexp(s):
    """log(sum(exp(x))) per row over a long row split in 512-column chunks: the running max by
    nl.loop_reduce with the loop index given as a tuple, the chunk max from nisa.tensor_reduce
    with axis given as a tuple, and the running sum by loop_reduce with np.add after the max
    is known (two passes)."""
    R, C = s.shape
    out = nl.ndarray((R, 1), dtype=nl.float32, buffer=nl.shared_hbm)
    for r in nl.affine_range(R // 128):
        mx = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
        for c in nl.affine_range(C // 512):
            t = nl.load(s[r * 128:(r + 1) * 128, c * 512:(c + 1) * 512])
            mx[...] = nl.loop_reduce(nisa.tensor_reduce(np.max, t, axis=(1,), keepdims=True),
                                     op=np.max, loop_indices=(c,), dtype=nl.float32)
        neg = nl.negative(mx)
        tot = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
        for c in nl.affine_range(C // 512):
            t = nl.load(s[r * 128:(r + 1) * 128, c * 512:(c + 1) * 512])
            e = nisa.activation(op=nl.exp, data=t, bias=neg)
            tot[...] = nl.loop_reduce(nl.sum(e, axis=(1,), keepdims=True), op=np.add,
                                      loop_indices=(c,), dtype=nl.float32)
        nl.store(out[r * 128:(r + 1) * 128, :], value=nl.add(nl.log(tot), mx))
    return out
