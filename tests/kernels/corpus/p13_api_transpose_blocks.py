# A 2-D transpose by 128 x 128 blocks with nl.transpose (the result in PSUM) and nl.copy out of it,
# then a tanh of the transposed block scaled by a Python float (`t * 0.5`).
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x):
    R, C = x.shape
    out = nl.ndarray((C, R), dtype=x.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(R // 128):
        for j in nl.affine_range(C // 128):
            blk = nl.load(x[i * 128:(i + 1) * 128, j * 128:(j + 1) * 128])
            tp = nl.transpose(blk)
            t = nl.copy(tp)
            y = nl.tanh(t * 0.5)
            nl.store(out[j * 128:(j + 1) * 128, i * 128:(i + 1) * 128], value=y)
    return out
