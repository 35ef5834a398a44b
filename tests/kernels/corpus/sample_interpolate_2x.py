# Contributed-sample style interpolation (bilinear 2x upsampling, corners aligned): channels on
# partitions, rows in an nl.static_range loop carrying the previous row, even/odd columns
# written through strided index grids (`2 * i_w + 1`), the last odd column masked off (its
# neighbour read out of range only where the mask is off), and `if r > 0:` on the loop index.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
from neuronxcc.nki.language import par_dim


@nki.jit
def interpolate_bilinear_2x_fwd(src):
    c, h, w = src.shape
    h2, w2 = 2 * h - 1, 2 * w - 1
    dst = nl.ndarray((c, h2, w2), dtype=src.dtype, buffer=nl.shared_hbm)
    i_p, i_w = nl.mgrid[0:c, 0:w]
    j_p, j_w = nl.mgrid[0:c, 0:w2]
    prev = nl.ndarray((par_dim(c), w2), dtype=src.dtype, buffer=nl.sbuf)
    for r in nl.static_range(h):
        row = nl.load(src[i_p, r, i_w])
        cur = nl.ndarray((par_dim(c), w2), dtype=src.dtype, buffer=nl.sbuf)
        cur[i_p, 2 * i_w] = nl.copy(row)
        pair = nl.add(row[i_p, i_w], row[i_p, i_w + 1], mask=(i_w < w - 1))
        cur[i_p, 2 * i_w + 1] = nl.multiply(pair, 0.5, mask=(i_w < w - 1))
        nl.store(dst[j_p, 2 * r, j_w], value=cur)
        if r > 0:
            mid = nl.multiply(nl.add(prev, cur), 0.5)
            nl.store(dst[j_p, 2 * r - 1, j_w], value=mid)
        prev[...] = nl.copy(cur)
    return dst


kernel = interpolate_bilinear_2x_fwd
