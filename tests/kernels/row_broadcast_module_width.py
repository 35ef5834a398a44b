# Legacy API, a researcher's port: the chunk width is a module constant computed from another
# (`CHUNK = WIDTH // 2`: 1024 fp32 columns, two PSUM banks) that the kernel only divides the row by.
# Each chunk is multiplied by rows of w that the DMA copies onto every partition (a zero partition
# stride). broadcast_on_chip offers the plain move and one that first sets CHUNK to 512, so that
# each broadcast row fits one PSUM bank. out[c, m] = sum_s x[c, m] * w[s, m].
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl

WIDTH = 2048
CHUNK = WIDTH // 2


@nki.jit
def kernel(x, w):
    channels, width = x.shape
    steps = w.shape[0]
    out = nl.ndarray((channels, width), dtype=x.dtype, buffer=nl.shared_hbm)
    lanes = nl.arange(128)[:, None]
    for block in nl.affine_range(channels // 128):
        for chunk in nl.affine_range(width // CHUNK):
            cols = chunk * CHUNK + nl.arange(CHUNK)[None, :]
            x_tile = nl.load(x[block * 128 + lanes, cols])
            acc = nl.zeros((128, CHUNK), dtype=nl.float32, buffer=nl.sbuf)
            for s in nl.sequential_range(steps):
                w_rows = nl.load(w[s + 0 * lanes, cols])
                acc[...] = nl.add(acc, nl.multiply(x_tile, w_rows))
            nl.store(out[block * 128 + lanes, cols], value=acc)
    return out
