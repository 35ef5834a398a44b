# Newer nki API: rope_halves_view.py's nest (HBM tensors reshaped into column-tile views, the tile
# width the kernel's own constant), destination-first dma_copy and tensor_tensor into declared tiles.
import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def kernel(x, cos, sin):
    d_size, seq = x.shape
    half = d_size // 2
    width = 512
    blocks = seq // width
    out = nl.ndarray((d_size, seq), dtype=x.dtype, buffer=nl.shared_hbm)
    x_blk = x.reshape((d_size, blocks, width))
    cos_blk = cos.reshape((half, blocks, width))
    sin_blk = sin.reshape((half, blocks, width))
    out_blk = out.reshape((d_size, blocks, width))
    for b in nl.affine_range(blocks):
        lo = nl.ndarray((half, width), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=lo, src=x_blk[0:half, b, :])
        hi = nl.ndarray((half, width), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=hi, src=x_blk[half:d_size, b, :])
        c = nl.ndarray((half, width), dtype=cos.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=c, src=cos_blk[:, b, :])
        s = nl.ndarray((half, width), dtype=sin.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=s, src=sin_blk[:, b, :])
        lo_c = nl.ndarray((half, width), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=lo_c, data1=lo, data2=c, op=nl.multiply)
        hi_s = nl.ndarray((half, width), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=hi_s, data1=hi, data2=s, op=nl.multiply)
        top = nl.ndarray((half, width), dtype=x.dtype, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=top, data1=lo_c, data2=hi_s, op=nl.subtract)
        nisa.dma_copy(dst=out_blk[0:half, b, :], src=top)
        lo_s = nl.ndarray((half, width), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=lo_s, data1=lo, data2=s, op=nl.multiply)
        hi_c = nl.ndarray((half, width), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=hi_c, data1=hi, data2=c, op=nl.multiply)
        bottom = nl.ndarray((half, width), dtype=x.dtype, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=bottom, data1=lo_s, data2=hi_c, op=nl.add)
        nisa.dma_copy(dst=out_blk[half:d_size, b, :], src=bottom)
    return out
