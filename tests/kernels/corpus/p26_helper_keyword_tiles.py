# The tile work in a module helper whose loop bounds name its own locals (`rows, cols = src.shape`)
# and its keyword parameters, called with the kernel's tile sizes by keyword. Opened at the call,
# the helper's loops are the kernel's: a move that keeps a header as its author spelled it prints
# an opened loop from the form, since `cols // width` names nothing the kernel binds.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


def _clip_tiles(src, dst, height=128, width=128):
    rows, cols = src.shape
    for r in nl.affine_range(rows // height):
        for c in nl.affine_range(cols // width):
            t = nl.load(src[r * height:(r + 1) * height, c * width:(c + 1) * width])
            u = nl.minimum(nl.maximum(t, -1.0), 1.0)
            nl.store(dst[r * height:(r + 1) * height, c * width:(c + 1) * width], value=u)


@nki.jit
def clip_kernel(x, rows_per_tile=128, cols_per_tile=256):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    _clip_tiles(x, out, width=cols_per_tile, height=rows_per_tile)
    return out
