# inputs: 2x4x32x256
# A part of an HBM tensor reshaped (legacy API): x[b] is (4, 32, 256), contiguous in HBM, read as
# 128 rows of 256 by `x[b, :, :, :].reshape((128, 256))`. The part's dims merge into one range
# (lift_views.cpp contiguous_merge), so its tile is an affine access of a view of x.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x):
    B = x.shape[0]
    out = nl.ndarray((B, 128, 256), dtype=x.dtype, buffer=nl.shared_hbm)
    for b in nl.affine_range(B):
        t = nl.load(x[b, :, :, :].reshape((128, 256)))
        nl.store(out[b], value=nl.multiply(t, nl.sigmoid(t)))
    return out
