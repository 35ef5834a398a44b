# A prefix sum down the rows (np.cumsum(x, axis=0)) on the Tensor Engine: an upper-triangular
# ones matrix built with numpy inside the kernel and uploaded with nl.shared_constant, a ones row
# (1, 128) matmul that broadcasts the running carry to every partition accumulated into the same
# PSUM tile, the carry kept in SBUF across a nl.sequential_range and refreshed from the tile's
# last partition (`ps[P - 1:P, :]`).
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def cumsum_rows(x):
    M, N = x.shape
    P = nl.tile_size.pmax
    out = nl.ndarray((M, N), dtype=x.dtype, buffer=nl.shared_hbm)
    tri_hbm = nl.shared_constant(np.triu(np.ones((P, P), dtype=np.float32)))
    tri = nl.load(tri_hbm)
    ones_row = nl.ones((1, P), dtype=nl.float32)
    carry = nl.zeros((1, N), dtype=nl.float32, buffer=nl.sbuf)
    for t in nl.sequential_range(M // P):
        xt = nl.load(x[t * P:(t + 1) * P, :])
        ps = nl.zeros((P, N), dtype=nl.float32, buffer=nl.psum)
        ps += nisa.nc_matmul(tri, xt)
        ps += nisa.nc_matmul(ones_row, carry)
        res = nl.copy(ps, dtype=x.dtype)
        nl.store(out[t * P:(t + 1) * P, :], value=res)
        carry[...] = nl.copy(ps[P - 1:P, :])
    return out
