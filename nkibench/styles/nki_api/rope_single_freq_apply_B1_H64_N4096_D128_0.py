import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def kernel(x, cos, sin):
    # x: (D, S), cos/sin: (D/2, S). Rows [x0*cos - x1*sin ; x0*sin + x1*cos] with x0, x1 the two
    # halves of x, in 1024-column blocks on D/2 partitions.
    d_size, seq = x.shape
    half = d_size // 2
    assert tuple(cos.shape) == (half, seq)
    block = 1024
    out = nl.ndarray((d_size, seq), dtype=x.dtype, buffer=nl.shared_hbm)
    for c in nl.affine_range(seq // block):
        c0 = c * block
        x0 = nl.ndarray((half, block), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=x0, src=x[0:half, c0:c0 + block])
        x1 = nl.ndarray((half, block), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=x1, src=x[half:d_size, c0:c0 + block])
        cos_tile = nl.ndarray((half, block), dtype=cos.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=cos_tile, src=cos[:, c0:c0 + block])
        sin_tile = nl.ndarray((half, block), dtype=sin.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=sin_tile, src=sin[:, c0:c0 + block])
        x0_cos = nl.ndarray((half, block), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=x0_cos, data1=x0, data2=cos_tile, op=nl.multiply)
        x1_sin = nl.ndarray((half, block), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=x1_sin, data1=x1, data2=sin_tile, op=nl.multiply)
        low = nl.ndarray((half, block), dtype=x.dtype, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=low, data1=x0_cos, data2=x1_sin, op=nl.subtract)
        x0_sin = nl.ndarray((half, block), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=x0_sin, data1=x0, data2=sin_tile, op=nl.multiply)
        x1_cos = nl.ndarray((half, block), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=x1_cos, data1=x1, data2=cos_tile, op=nl.multiply)
        high = nl.ndarray((half, block), dtype=x.dtype, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=high, data1=x0_sin, data2=x1_cos, op=nl.add)
        nisa.dma_copy(dst=out[0:half, c0:c0 + block], src=low)
        nisa.dma_copy(dst=out[half:d_size, c0:c0 + block], src=high)
    return out
