# Newer nki API (destination-first calls, every tile declared where it is needed): the nest of
# rope_halves_tiles.py, x (D, S), cos / sin (D / 2, S), (64, 2048) tiles.
import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def kernel(x, cos, sin):
    d_size, seq = x.shape
    half = d_size // 2
    out = nl.ndarray((d_size, seq), dtype=x.dtype, buffer=nl.shared_hbm)
    for c in nl.affine_range(seq // 2048):
        x0 = nl.ndarray((128, 1024), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=x0[0:64, :], src=x[0:half, 2048*c:2048*c + 1024])
        nisa.dma_copy(dst=x0[64:128, :], src=x[0:half, 2048*c + 1024:2048*c + 2048])
        x1 = nl.ndarray((128, 1024), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=x1[0:64, :], src=x[half:d_size, 2048*c:2048*c + 1024])
        nisa.dma_copy(dst=x1[64:128, :], src=x[half:d_size, 2048*c + 1024:2048*c + 2048])
        cos_tile = nl.ndarray((128, 1024), dtype=cos.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=cos_tile[0:64, :], src=cos[:, 2048*c:2048*c + 1024])
        nisa.dma_copy(dst=cos_tile[64:128, :], src=cos[:, 2048*c + 1024:2048*c + 2048])
        sin_tile = nl.ndarray((128, 1024), dtype=sin.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=sin_tile[0:64, :], src=sin[:, 2048*c:2048*c + 1024])
        nisa.dma_copy(dst=sin_tile[64:128, :], src=sin[:, 2048*c + 1024:2048*c + 2048])
        x0_cos = nl.ndarray((128, 1024), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=x0_cos, data1=x0, data2=cos_tile, op=nl.multiply)
        x1_sin = nl.ndarray((128, 1024), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=x1_sin, data1=x1, data2=sin_tile, op=nl.multiply)
        low = nl.ndarray((128, 1024), dtype=x.dtype, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=low, data1=x0_cos, data2=x1_sin, op=nl.subtract)
        nisa.dma_copy(dst=out[0:half, 2048*c:2048*c + 1024], src=low[0:64, :])
        nisa.dma_copy(dst=out[0:half, 2048*c + 1024:2048*c + 2048], src=low[64:128, :])
        x0_sin = nl.ndarray((128, 1024), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=x0_sin, data1=x0, data2=sin_tile, op=nl.multiply)
        x1_cos = nl.ndarray((128, 1024), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=x1_cos, data1=x1, data2=cos_tile, op=nl.multiply)
        high = nl.ndarray((128, 1024), dtype=x.dtype, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=high, data1=x0_sin, data2=x1_cos, op=nl.add)
        nisa.dma_copy(dst=out[half:d_size, 2048*c:2048*c + 1024], src=high[0:64, :])
        nisa.dma_copy(dst=out[half:d_size, 2048*c + 1024:2048*c + 2048], src=high[64:128, :])
    return out
