import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa

# Row softmax of scores built chunk by chunk (legacy API): each 128-row block's score row is filled
# 512 columns at a time from the matmul's PSUM tile, and its maximum is taken once over the finished
# row. reduce_per_chunk takes the maximum of each chunk inside the loop instead (the exponentials no
# longer wait for a whole-row pass after the last matmul).
CHUNK = 512


@nki.jit
def kernel(xT, w):
    K, M = xT.shape
    N = w.shape[1]
    out = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    w_sb = nl.load(w)
    for m in nl.affine_range(M // 128):
        lhs = nl.load(xT[:, m * 128:(m + 1) * 128])
        row = nl.ndarray((128, N), dtype=nl.float32, buffer=nl.sbuf)
        for j in nl.affine_range(N // CHUNK):
            ps = nisa.nc_matmul(lhs, w_sb[:, j * CHUNK:(j + 1) * CHUNK])
            row[:, j * CHUNK:(j + 1) * CHUNK] = nisa.activation(op=nl.copy, data=ps, scale=0.125)
        neg_max = nisa.tensor_reduce(nl.max, row, axis=[1], negate=True, keepdims=True)
        total = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
        probs = nisa.activation_reduce(op=nl.exp, data=row, bias=neg_max, reduce_op=nl.add, reduce_res=total)
        inv = nisa.reciprocal(total)
        nl.store(out[m * 128:(m + 1) * 128, :], value=nisa.tensor_scalar(probs, nl.multiply, inv))
    return out
