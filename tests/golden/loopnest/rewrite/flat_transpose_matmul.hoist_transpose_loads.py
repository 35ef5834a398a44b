# Generated-style matmul: one flat loop over (row tile, column block) pairs, split by `//` and `%`;
# every result written into a declared buffer. The stationary operand's 128 x 128 block is loaded,
# transposed on the Tensor Engine into PSUM and copied to SBUF inside the contraction loop, so once
# per column block although it does not depend on the column. a (256, 256), b (256, 1024).
# hoist_transpose (loads=1) takes the load, the transpose and the copy out of the column loop into
# a buffer of the row's transposed blocks.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(a, b):
    M, K = a.shape
    _, N = b.shape
    CB = 512
    c = nl.ndarray((M, N), dtype=a.dtype, buffer=nl.shared_hbm)
    for flat_blk in nl.affine_range(2):
        a_blk_t = nl.ndarray(shape=(K // 128, nl.par_dim(128), 128), dtype=nl.float32, buffer=nl.sbuf)
        for kk in nl.affine_range(K // 128):
            a_blk = nl.load(a[nl.ds(128*flat_blk, 128), nl.ds(kk * 128, 128)])
            a_blk_t[kk, :, :] = nisa.nc_transpose(a_blk)
        for flat_in in nl.affine_range(2):
            acc = nl.zeros((128, CB), dtype=nl.float32, buffer=nl.psum)
            for kk in nl.affine_range(K // 128):
                b_blk = nl.load(b[nl.ds(kk * 128, 128), nl.ds(512*flat_in, 512)])
                acc[...] += nisa.nc_matmul(a_blk_t[kk, :, :], b_blk)
            res = nl.ndarray((128, CB), dtype=nl.float32, buffer=nl.sbuf)
            res[...] = nisa.tensor_copy(acc, dtype=nl.float32)
            nl.store(c[nl.ds(128*flat_blk, 128), nl.ds(512*flat_in, 512)], value=res)
    return c
