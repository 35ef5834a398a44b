# Newer nki API (destination-first calls): the grouped heads of grouped_heads_kv.py, the KV head
# of query head h written `h * KH // QH`, the scores computed transposed (keys on partitions) so
# that they are the stationary operand of the product with V.  q (4, 128, 64), k, v (2, 128, 64).
import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def kernel(q, k, v):
    QH, P, D = q.shape
    KH = k.shape[0]
    out = nl.ndarray((QH, P, D), dtype=q.dtype, buffer=nl.shared_hbm)
    for h in nl.affine_range(QH):
        q_t = nl.ndarray((P, D), dtype=q.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=q_t, src=q[h])
        qT_ps = nl.ndarray((D, P), dtype=nl.float32, buffer=nl.psum)
        nisa.nc_transpose(dst=qT_ps, data=q_t)
        qT = nl.ndarray((D, P), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_copy(dst=qT, src=qT_ps)
        k_t = nl.ndarray((P, D), dtype=k.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=k_t, src=k[h * KH // QH])
        kT_ps = nl.ndarray((D, P), dtype=nl.float32, buffer=nl.psum)
        nisa.nc_transpose(dst=kT_ps, data=k_t)
        kT = nl.ndarray((D, P), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_copy(dst=kT, src=kT_ps)
        sT_ps = nl.ndarray((P, P), dtype=nl.float32, buffer=nl.psum)
        nisa.nc_matmul(dst=sT_ps, stationary=kT, moving=qT)
        sT = nl.ndarray((P, P), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_copy(dst=sT, src=sT_ps)
        v_t = nl.ndarray((P, D), dtype=v.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=v_t, src=v[h * KH // QH])
        o_ps = nl.ndarray((P, D), dtype=nl.float32, buffer=nl.psum)
        nisa.nc_matmul(dst=o_ps, stationary=sT, moving=v_t)
        o = nl.ndarray((P, D), dtype=q.dtype, buffer=nl.sbuf)
        nisa.tensor_copy(dst=o, src=o_ps)
        nisa.dma_copy(dst=out[h], src=o)
    return out
