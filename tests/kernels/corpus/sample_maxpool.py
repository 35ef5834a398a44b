# Contributed-sample style max pooling: channels on partitions in 128-row tiles (the last tile
# ragged, guarded by masks), overlapping windows through a 5-D nl.mgrid (stride 2, window 3),
# nl.max over the two window axes with a mask, math.ceil, and nki.benchmark-style decoration.
import math
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def maxpool_kernel(in_tensor, kernel_size, stride):
    """Max pooling over the last two dims of a (C, H, W) tensor (no padding)."""
    channels, h_in, w_in = in_tensor.shape
    h_out = (h_in - kernel_size) // stride + 1
    w_out = (w_in - kernel_size) // stride + 1
    out_tensor = nl.ndarray((channels, h_out, w_out), dtype=in_tensor.dtype, buffer=nl.shared_hbm)

    pmax = nl.tile_size.pmax
    n_tiles = int(math.ceil(channels / pmax))
    i_p, i_h, i_w = nl.mgrid[0:pmax, 0:h_in, 0:w_in]
    i_0, i_1, i_2, i_3, i_4 = nl.mgrid[0:pmax, 0:h_out, 0:kernel_size, 0:w_out, 0:kernel_size]
    o_p, o_h, o_w = nl.mgrid[0:pmax, 0:h_out, 0:w_out]
    for t in nl.affine_range(n_tiles):
        in_tile = nl.load(in_tensor[t * pmax + i_p, i_h, i_w], mask=(t * pmax + i_p < channels))
        windows = in_tile[i_0, stride * i_1 + i_2, stride * i_3 + i_4]
        out_tile = nl.max(windows, axis=[2, 4], mask=(t * pmax + i_0 < channels))
        nl.store(out_tensor[t * pmax + o_p, o_h, o_w], value=out_tile, mask=(t * pmax + o_p < channels))
    return out_tensor


def kernel(x):
    return maxpool_kernel(x, 3, 2)
