# Legacy API, a researcher's port: rows of w broadcast onto every partition on chip already
# (`nl.broadcast_to`), in chunks whose width is a module constant (`CHUNK = WIDTH // 2`: 1024 fp32
# columns, 4 KiB per partition, wider than a PSUM bank). broadcast_on_chip offers to set CHUNK to
# 512, where each broadcast row fits one bank. out[c, m] = sum_s x[c, m] * w[s, m].
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl

WIDTH = 2048
CHUNK = WIDTH // 2


def row_on_every_partition(w, s, cols):
    return nl.broadcast_to(nl.load(w[s:s + 1, cols]), shape=(128, CHUNK))


@nki.jit
def kernel(x, w):
    channels, width = x.shape
    steps = w.shape[0]
    out = nl.ndarray((channels, width), dtype=x.dtype, buffer=nl.shared_hbm)
    for block in nl.affine_range(channels // 128):
        rows = slice(block * 128, (block + 1) * 128)
        for chunk in range(width // CHUNK):
            cols = slice(chunk * CHUNK, (chunk + 1) * CHUNK)
            x_tile = nl.load(x[rows, cols])
            acc = nl.zeros((128, CHUNK), dtype=nl.float32, buffer=nl.sbuf)
            for s in range(steps):
                acc += nl.multiply(x_tile, row_on_every_partition(w, s, cols))
            nl.store(out[rows, cols], value=acc)
    return out
