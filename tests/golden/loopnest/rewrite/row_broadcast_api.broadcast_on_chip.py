# Newer API, destination-first: the state row w[s] broadcast over the partitions by a DMA view
# (`.broadcast(0, 128)`) into a declared buffer. out[c, m] = sum_s x[c, m] * w[s, m].
import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def kernel(x, w):
    C, M = x.shape
    S, _ = w.shape
    out = nl.ndarray((C, M), dtype=x.dtype, buffer=nl.shared_hbm)
    for ct in nl.affine_range(C // 128):
        x_t = nl.ndarray((128, M), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=x_t, src=x[ct * 128:(ct + 1) * 128, :])
        acc = nl.ndarray((128, M), dtype=nl.float32, buffer=nl.sbuf)
        nisa.memset(dst=acc, value=0.0)
        for s in nl.sequential_range(S):
            w_t = nl.ndarray((128, M), dtype=nl.float32, buffer=nl.sbuf)
            w_t[...] = nl.broadcast_to(src=nl.load(src=w[s:s + 1, :]), shape=(128, 512))
            prod = nl.ndarray((128, M), dtype=nl.float32, buffer=nl.sbuf)
            nisa.tensor_tensor(dst=prod, data1=x_t, data2=w_t, op=nl.multiply)
            nisa.tensor_tensor(dst=acc, data1=acc, data2=prod, op=nl.add)
        nisa.dma_copy(dst=out[ct * 128:(ct + 1) * 128, :], src=acc)
    return out
