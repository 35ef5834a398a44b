# Newer nki API (destination-first calls, plain `range`, `nl.ds`): the nest of rope_ragged_grid.py,
# the last of the 768-column windows cut by `min()`, full-width tiles sliced to it.
import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def kernel(x, cos, sin):
    d_size, seq = x.shape
    half = d_size // 2
    out = nl.ndarray((d_size, seq), dtype=x.dtype, buffer=nl.shared_hbm)
    W = 768
    for t in range((seq + W - 1) // W):
        w = min(W, seq - t * W)
        x0 = nl.ndarray((half, W), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=x0[:, 0:w], src=x[0:half, nl.ds(t * W, w)])
        x1 = nl.ndarray((half, W), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=x1[:, 0:w], src=x[half:d_size, nl.ds(t * W, w)])
        cos_tile = nl.ndarray((half, W), dtype=cos.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=cos_tile[:, 0:w], src=cos[:, nl.ds(t * W, w)])
        sin_tile = nl.ndarray((half, W), dtype=sin.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=sin_tile[:, 0:w], src=sin[:, nl.ds(t * W, w)])
        x0_cos = nl.ndarray((half, W), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=x0_cos[:, 0:w], data1=x0[:, 0:w], data2=cos_tile[:, 0:w], op=nl.multiply)
        x1_sin = nl.ndarray((half, W), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=x1_sin[:, 0:w], data1=x1[:, 0:w], data2=sin_tile[:, 0:w], op=nl.multiply)
        low = nl.ndarray((half, W), dtype=x.dtype, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=low[:, 0:w], data1=x0_cos[:, 0:w], data2=x1_sin[:, 0:w], op=nl.subtract)
        nisa.dma_copy(dst=out[0:half, nl.ds(t * W, w)], src=low[:, 0:w])
        x0_sin = nl.ndarray((half, W), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=x0_sin[:, 0:w], data1=x0[:, 0:w], data2=sin_tile[:, 0:w], op=nl.multiply)
        x1_cos = nl.ndarray((half, W), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=x1_cos[:, 0:w], data1=x1[:, 0:w], data2=cos_tile[:, 0:w], op=nl.multiply)
        high = nl.ndarray((half, W), dtype=x.dtype, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=high[:, 0:w], data1=x0_sin[:, 0:w], data2=x1_cos[:, 0:w], op=nl.add)
        nisa.dma_copy(dst=out[half:d_size, nl.ds(t * W, w)], src=high[:, 0:w])
    return out
