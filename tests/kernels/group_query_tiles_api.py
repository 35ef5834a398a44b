# Newer nki API (destination-first calls): group_query_tiles.py's nest, the KV head bound as
# `kv = h // group` and the head in its group written inline (`h % group`).
# q (4, 256, 64), k and v (2, 128, 64); out (2, 2, 256, 64).
import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def kernel(q, k, v):
    QH, N, D = q.shape
    KH = k.shape[0]
    group = QH // KH
    out = nl.ndarray((KH, group, N, D), dtype=q.dtype, buffer=nl.shared_hbm)
    for h in nl.affine_range(QH):
        kv = h // group
        for qi in nl.affine_range(N // 128):
            q_t = nl.ndarray((128, D), dtype=q.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=q_t, src=q[h, qi * 128:(qi + 1) * 128, :])
            qT_ps = nl.ndarray((D, 128), dtype=nl.float32, buffer=nl.psum)
            nisa.nc_transpose(dst=qT_ps, data=q_t)
            qT = nl.ndarray((D, 128), dtype=nl.float32, buffer=nl.sbuf)
            nisa.tensor_copy(dst=qT, src=qT_ps)
            k_t = nl.ndarray((128, D), dtype=k.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=k_t, src=k[kv])
            kT_ps = nl.ndarray((D, 128), dtype=nl.float32, buffer=nl.psum)
            nisa.nc_transpose(dst=kT_ps, data=k_t)
            kT = nl.ndarray((D, 128), dtype=nl.float32, buffer=nl.sbuf)
            nisa.tensor_copy(dst=kT, src=kT_ps)
            sT_ps = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.psum)
            nisa.nc_matmul(dst=sT_ps, stationary=kT, moving=qT)
            sT = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.sbuf)
            nisa.tensor_copy(dst=sT, src=sT_ps)
            v_t = nl.ndarray((128, D), dtype=v.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=v_t, src=v[kv])
            o_ps = nl.ndarray((128, D), dtype=nl.float32, buffer=nl.psum)
            nisa.nc_matmul(dst=o_ps, stationary=sT, moving=v_t)
            o = nl.ndarray((128, D), dtype=q.dtype, buffer=nl.sbuf)
            nisa.tensor_copy(dst=o, src=o_ps)
            nisa.dma_copy(dst=out[kv, h % group, qi * 128:(qi + 1) * 128, :], src=o)
    return out
