import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def group_mean(x, *, groups=4):
    # Mean of each of `groups` contiguous column groups: the (128, C) row tile is read as a
    # (128, groups, C // groups) view through a 3-D nl.mgrid, reduced over its last axis.
    R, C = x.shape
    W = C // groups
    out = nl.ndarray((R, groups), dtype=x.dtype, buffer=nl.shared_hbm)
    i_p, i_g, i_w = nl.mgrid[0:128, 0:groups, 0:W]
    o_p, o_g = nl.mgrid[0:128, 0:groups]
    for r in nl.affine_range(R // 128):
        t = nl.load(x[r * 128 + i_p, i_g * W + i_w])            # (128, groups, W)
        m = nl.mean(t, axis=2)                                  # (128, groups)
        nl.store(out[r * 128 + o_p, o_g], value=m)
    return out
