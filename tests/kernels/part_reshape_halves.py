# inputs: 2x4x32x256
# part_reshape_rows.py read in two halves: x[b, 0:2] and x[b, 2:4], each (2, 32, 256) and
# contiguous in HBM, reshaped to 64 rows of 256; the second range starts inside the first merged dim.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x):
    B = x.shape[0]
    out = nl.ndarray((B, 128, 256), dtype=x.dtype, buffer=nl.shared_hbm)
    for b in nl.affine_range(B):
        for h in nl.affine_range(2):
            t = nl.load(x[b, 2 * h:2 * h + 2, :, :].reshape((64, 256)))
            nl.store(out[b, 64 * h:64 * h + 64, :], value=nl.multiply(t, nl.sigmoid(t)))
    return out
