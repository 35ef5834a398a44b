# A row-tiled matmul in the style of tool-generated NKI: names v1..vN, full-size index grids, every
# tile kept in a full-size block ndarray indexed by the loop variables (`v8[i0, i2, ...]`), string
# loop markers, imports inside the body. The accumulator is zeroed by assigning nl.zeros into its
# block, and every row tile loads every weight tile again.
# v1 (2, 128, 2, 128) = lhs rows [m_hi, m_lo, k_hi, k_lo]; v2 (2, 128, 1024) = rhs [k_hi, k_lo, n].
# jam_rows on `for i0` shares the weight load between the two row tiles; each row keeps its own
# zeroed accumulator (the zeros is the statement's own tile in every copy).
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(v1, v2):
    import numpy as np
    import neuronxcc.nki.language as nl
    import neuronxcc.nki.isa as nisa
    from neuronxcc.nki.language import par_dim
    v3 = nl.ndarray((2, 128, 1024), dtype=np.float32, buffer=nl.shared_hbm)
    v4 = nl.ndarray((2, 2, par_dim(128), 128), dtype=np.float32, buffer=nl.sbuf)
    v5 = nl.ndarray((2, 2, par_dim(128), 128), dtype=np.float32, buffer=nl.psum)
    v6 = nl.ndarray((2, 2, par_dim(128), 128), dtype=np.float32, buffer=nl.sbuf)
    v7 = nl.ndarray((2, 2, 2, par_dim(128), 512), dtype=np.float32, buffer=nl.sbuf)
    v8 = nl.ndarray((2, 2, par_dim(128), 512), dtype=np.float32, buffer=nl.psum)
    v9 = nl.ndarray((2, 2, par_dim(128), 512), dtype=np.float32, buffer=nl.sbuf)
    t0 = nl.arange(128)[:, None]
    t1 = nl.arange(128)[None, :]
    t2 = nl.arange(512)[None, :]
    """loop i0"""
    for i1 in nl.affine_range(2):
        """loop i1"""
        v4[0, i1, t0, t1] = nl.load(v1[0, t0, i1, t1])
        v4[1, i1, t0, t1] = nl.load(v1[1, t0, i1, t1])
        v5[0, i1, t0, t1] = nisa.nc_transpose(v4[0, i1, t0, t1])
        v5[1, i1, t0, t1] = nisa.nc_transpose(v4[1, i1, t0, t1])
        v6[0, i1, t0, t1] = nl.copy(v5[0, i1, t0, t1], dtype=np.float32)
        v6[1, i1, t0, t1] = nl.copy(v5[1, i1, t0, t1], dtype=np.float32)
    for i2 in nl.affine_range(2):
        """loop i2"""
        v8[0, i2, t0, t2] = nl.zeros((128, 512), dtype=np.float32, buffer=nl.psum)
        v8[1, i2, t0, t2] = nl.zeros((128, 512), dtype=np.float32, buffer=nl.psum)
        for i3 in nl.affine_range(2):
            """loop i3"""
            v7[0, i2, i3, t0, t2] = nl.load(v2[i3, t0, 512*i2 + t2])
            v8[0, i2, t0, t2] += nisa.nc_matmul(v6[0, i3, t0, t1], v7[0, i2, i3, t0, t2])
            v8[1, i2, t0, t2] += nisa.nc_matmul(v6[1, i3, t0, t1], v7[0, i2, i3, t0, t2])
        v9[0, i2, t0, t2] = nl.copy(v8[0, i2, t0, t2], dtype=np.float32)
        v9[1, i2, t0, t2] = nl.copy(v8[1, i2, t0, t2], dtype=np.float32)
        nl.store(v3[0, t0, 512*i2 + t2], value=v9[0, i2, t0, t2])
        nl.store(v3[1, t0, 512*i2 + t2], value=v9[1, i2, t0, t2])
    return v3
