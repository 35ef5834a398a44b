# A two-layer MLP written as a GPU programmer ports a fused kernel: one row tile of x (128, 256),
# the hidden dim H walked in chunks of 256 by a sequential loop, the chunk's activations relu(x @ w1)
# multiplied into the second layer at once, 128 hidden rows per inner step, and the (128, 256)
# output summed in SBUF (`y[...] = nl.add(y[...], part)`: a running sum the chunk loop carries).
# free_size regroups the sum: 512 hidden columns per chunk, the inner loop 4 steps (the chunk loop
# may merge its iterations, the partial sums reaching `y` in other groups).
# Inputs: xt (256, 128) = x transposed, w1 (256, 1024), w2 (1024, 256).
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl

CHUNK = 256
ROWS = 128


@nki.jit
def kernel(xt, w1, w2):
    k_size, m = xt.shape
    n_out = w2.shape[1]
    out = nl.ndarray((m, n_out), dtype=xt.dtype, buffer=nl.shared_hbm)
    xt_tiles = nl.ndarray((k_size // 128, nl.par_dim(128), m), dtype=nl.float32)
    for kk in nl.affine_range(k_size // 128):
        xt_tiles[kk] = nl.load(xt[kk * 128:(kk + 1) * 128, :])
    y = nl.zeros((m, n_out), dtype=nl.float32)
    for c in nl.sequential_range(2):
        pre = nl.zeros((m, 512), dtype=nl.float32, buffer=nl.psum)
        for kk in nl.affine_range(k_size // 128):
            w_blk = nl.load(w1[kk * 128:(kk + 1) * 128, 512*c:512*c + 512])
            pre += nl.matmul(xt_tiles[kk], w_blk, transpose_x=True)
        act = nl.maximum(pre, 0.0)
        part = nl.zeros((m, n_out), dtype=nl.float32, buffer=nl.psum)
        for r in nl.affine_range(4):
            w2_blk = nl.load(w2[512*c + 128*r:512*c + 128*r + 128, :])
            part += nl.matmul(act[:, r * ROWS:(r + 1) * ROWS], w2_blk)
        y[...] = nl.add(y[...], part)
    nl.store(out, value=y)
    return out
