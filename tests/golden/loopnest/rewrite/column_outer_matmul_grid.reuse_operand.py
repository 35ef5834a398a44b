# Legacy-grid style (index grids, v-numbered names, literal sizes): C = A @ B with the column
# blocks of C outermost (a (256, 256), b (256, 1024)). Every (n, m, k) step loads an A block and a
# B block and multiplies them with nl.matmul, which transposes the A block on the Tensor Engine at
# every call. reuse_operand must make m the outer loop, load A's row of blocks once per m and
# transpose each block once, here, in column_outer_matmul_tiles.py and in
# column_outer_matmul_api.py, and keep the result.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(v1, v2):
    v3 = nl.ndarray((256, 1024), dtype=np.float32, name='c', buffer=nl.shared_hbm)
    i_p = nl.arange(128)[:, None]
    i_k = nl.arange(128)[None, :]
    i_n = nl.arange(512)[None, :]
    for i1 in nl.affine_range(2):
        v5 = nl.ndarray(shape=(2, nl.par_dim(128), 128), dtype=nl.float32, buffer=nl.sbuf)
        for i2 in nl.affine_range(2):
            v5[i2, i_p, i_k] = nl.load(v1[128 * i1 + i_p, 128 * i2 + i_k])
        v5_t = nl.ndarray(shape=(2, nl.par_dim(128), 128), dtype=nl.float32, buffer=nl.sbuf)
        for i2 in nl.affine_range(2):
            v5_t[i2, i_p, i_k] = nl.transpose(x=v5[i2, i_p, i_k])
        for i0 in nl.affine_range(2):
            v4 = nl.zeros((128, 512), dtype=np.float32, buffer=nl.psum)
            for i2 in nl.affine_range(2):
                v6 = nl.load(v2[128 * i2 + i_p, 512 * i0 + i_n])
                v4 += nl.matmul(v5_t[i2, i_p, i_k], v6, transpose_x=True)
            nl.store(v3[128 * i1 + i_p, 512 * i0 + i_n], value=v4)
    return v3
