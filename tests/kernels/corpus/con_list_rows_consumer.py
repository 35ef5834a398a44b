# Attention rows in two passes, legacy API, value-returning calls: the first loop computes every
# row tile's scores and keeps them in a Python list (`rows.append(s)`); the second loop reads
# `rows[r]`, exponentiates on the Scalar Engine and goes back to the Tensor Engine for P^T and
# P @ V. The list is complete before the second loop starts, so its rows can be read two at a time.
from neuronxcc import nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(q_t, k_t, v):
    D, R = q_t.shape
    _, N = k_t.shape
    out = nl.ndarray((R, D), dtype=q_t.dtype, buffer=nl.shared_hbm)
    k_sb = nl.load(k_t)
    v_blocks = []
    for j in nl.affine_range(N // 128):
        v_blocks.append(nl.load(v[j * 128:(j + 1) * 128, :]))
    rows = []
    for r in nl.affine_range(R // 128):
        q_sb = nl.load(q_t[:, r * 128:(r + 1) * 128])
        s = nl.copy(nisa.nc_matmul(q_sb, k_sb), dtype=nl.float32)
        rows.append(s)
    for r in nl.affine_range(R // 128):
        p = nisa.activation(op=nl.exp, data=rows[r], scale=0.0625)
        o_ps = nl.zeros((128, D), dtype=nl.float32, buffer=nl.psum)
        for j in nl.affine_range(N // 128):
            pt = nl.copy(nisa.nc_transpose(p[:, j * 128:(j + 1) * 128]), dtype=nl.float32)
            o_ps += nisa.nc_matmul(pt, v_blocks[j])
        nl.store(out[r * 128:(r + 1) * 128, :], value=nl.copy(o_ps, dtype=q_t.dtype))
    return out
