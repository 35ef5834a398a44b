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
    for t in range(4):
        x0 = nl.ndarray((half, 2048), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=x0[...], src=x[0:half, nl.ds(2048*t, 2048)])
        x1 = nl.ndarray((half, 2048), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=x1[...], src=x[half:d_size, nl.ds(2048*t, 2048)])
        cos_tile = nl.ndarray((half, 2048), dtype=cos.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=cos_tile[...], src=cos[:, nl.ds(2048*t, 2048)])
        sin_tile = nl.ndarray((half, 2048), dtype=sin.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=sin_tile[...], src=sin[:, nl.ds(2048*t, 2048)])
        x0_cos = nl.ndarray((half, 2048), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=x0_cos[...], data1=x0, data2=cos_tile, op=nl.multiply)
        x1_sin = nl.ndarray((half, 2048), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=x1_sin[...], data1=x1, data2=sin_tile, op=nl.multiply)
        low = nl.ndarray((half, 2048), dtype=x.dtype, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=low[...], data1=x0_cos, data2=x1_sin, op=nl.subtract)
        nisa.dma_copy(dst=out[0:half, nl.ds(2048*t, 2048)], src=low)
        x0_sin = nl.ndarray((half, 2048), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=x0_sin[...], data1=x0, data2=sin_tile, op=nl.multiply)
        x1_cos = nl.ndarray((half, 2048), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=x1_cos[...], data1=x1, data2=cos_tile, op=nl.multiply)
        high = nl.ndarray((half, 2048), dtype=x.dtype, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=high[...], data1=x0_sin, data2=x1_cos, op=nl.add)
        nisa.dma_copy(dst=out[half:d_size, nl.ds(2048*t, 2048)], src=high)
    return out
