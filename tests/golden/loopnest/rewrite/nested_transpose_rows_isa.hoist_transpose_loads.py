# nested_transpose_rows.py with the ISA calls: `nisa.tensor_copy(nisa.nc_transpose(blk))`, the
# transpose into PSUM written as the inner call of its copy to SBUF, inside the column loop.
# a (256, 256), b (256, 1024). hoist_transpose (loads=1) takes the load and the transpose out of
# `for col`.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(a, b):
    M, K = a.shape
    _, N = b.shape
    WIDTH = 512
    c = nl.ndarray((M, N), dtype=a.dtype, buffer=nl.shared_hbm)
    for row in nl.affine_range(M // 128):
        blk_t2 = nl.ndarray(shape=(K // 128, nl.par_dim(128), 128), dtype=nl.float32, buffer=nl.sbuf)
        for kb in nl.affine_range(K // 128):
            blk = nl.load(a[row * 128:(row + 1) * 128, kb * 128:(kb + 1) * 128])
            blk_t2[kb, :, :] = nisa.nc_transpose(blk)
        for col in nl.affine_range(N // WIDTH):
            acc = nl.zeros((128, WIDTH), dtype=nl.float32, buffer=nl.psum)
            for kb in nl.affine_range(K // 128):
                rhs = nl.load(b[kb * 128:(kb + 1) * 128, col * WIDTH:(col + 1) * WIDTH])
                acc += nisa.nc_matmul(blk_t2[kb, :, :], rhs)
            out_tile = nisa.tensor_copy(acc, dtype=c.dtype)
            nl.store(c[row * 128:(row + 1) * 128, col * WIDTH:(col + 1) * WIDTH], value=out_tile)
    return c
