import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def swiglu(x, w_gate, w_up):
    """SwiGLU, (x Wg) * silu-free gate: silu(x Wg) * (x Wu), written as the newer API has it:
    every instruction destination-first into nl.ndarray buffers, nisa.dma_copy both ways,
    nisa.memset to zero, plain range loops, a ragged row tail handled by min() and slices,
    the PSUM accumulation by nc_matmul's default first-write-overwrites rule, and the K blocks
    of each operand kept in the free dims of one tile (partition dim leftmost, no block dims)."""
    M, K = x.shape
    N = w_gate.shape[1]
    out = nl.ndarray((M, N), dtype=x.dtype, buffer=nl.shared_hbm)
    wg = nl.ndarray((128, K // 128, N), dtype=nl.float32, buffer=nl.sbuf)
    wu = nl.ndarray((128, K // 128, N), dtype=nl.float32, buffer=nl.sbuf)
    for k in range(K // 128):
        nisa.dma_copy(dst=wg[:, k, :], src=w_gate[k * 128:(k + 1) * 128, :])
        nisa.dma_copy(dst=wu[:, k, :], src=w_up[k * 128:(k + 1) * 128, :])
    for m0 in range(0, M, 128):
        rows = min(128, M - m0)
        xT = nl.ndarray((128, K // 128, 128), dtype=nl.float32, buffer=nl.sbuf)
        nisa.memset(dst=xT, value=0.0)
        for k in range(K // 128):
            nisa.dma_transpose(dst=xT[:, k, 0:rows], src=x[m0:m0 + rows, k * 128:(k + 1) * 128])
        g_ps = nl.ndarray((128, N), dtype=nl.float32, buffer=nl.psum)
        u_ps = nl.ndarray((128, N), dtype=nl.float32, buffer=nl.psum)
        for k in range(K // 128):
            nisa.nc_matmul(dst=g_ps, stationary=xT[:, k, :], moving=wg[:, k, :])
            nisa.nc_matmul(dst=u_ps, stationary=xT[:, k, :], moving=wu[:, k, :])
        g = nl.ndarray((128, N), dtype=nl.float32, buffer=nl.sbuf)
        nisa.activation(dst=g, op=nl.silu, data=g_ps)
        y = nl.ndarray((128, N), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=y, data1=g, data2=u_ps, op=nl.multiply)
        nisa.dma_copy(dst=out[m0:m0 + rows, :], src=y[0:rows, :])
    return out
