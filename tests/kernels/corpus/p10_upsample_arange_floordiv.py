import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def upsample_nearest2x(img):
    # Nearest-neighbour 2x upsampling of an (H, W) image: output pixel (r, c) reads input
    # pixel (r // 2, c // 2). Each output tile of 128 rows reads 64 input rows.
    H, W = img.shape
    out = nl.ndarray((2 * H, 2 * W), dtype=img.dtype, buffer=nl.shared_hbm)
    i_p = nl.arange(128)[:, None]
    i_f = nl.arange(2 * W)[None, :]
    for t in nl.affine_range(2 * H // 128):
        src = nl.load(img[t * 64 + i_p // 2, i_f // 2])
        nl.store(out[t * 128 + i_p, i_f], value=src)
    # a second output: the columns de-interleaved, even columns first then odd ones
    deint = nl.ndarray((H, W), dtype=img.dtype, buffer=nl.shared_hbm)
    j_f = nl.arange(W)[None, :]
    half = W // 2
    for t in nl.affine_range(H // 128):
        row = nl.load(img[t * 128 + i_p, j_f])
        nl.store(deint[t * 128 + i_p, (j_f % 2) * half + j_f // 2], value=row)
    return out, deint
