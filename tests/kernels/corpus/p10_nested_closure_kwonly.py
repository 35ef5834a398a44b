import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def leaky_clip(x, bias, *, slope=0.2, clip=None, scale=1.0):
    """Leaky ReLU of (x + bias), optionally clipped, times scale.

    bias is a (1, N) row broadcast over every partition.
    """
    M, N = x.shape
    out = nl.ndarray((M, N), dtype=x.dtype, buffer=nl.shared_hbm)

    def leaky(t, *, alpha=slope):
        "max(t, alpha * t) for 0 < alpha < 1"
        return nl.maximum(t, nl.multiply(t, alpha))

    def finish(t):
        # the clip is decided at trace time; no branch reaches the device
        if clip is not None:
            t = nl.minimum(t, clip)
        return t if scale == 1.0 else nl.multiply(t, scale)

    brow = nl.broadcast_to(nl.load(bias), shape=(128, N))
    for i in nl.affine_range(M // 128):
        """one 128-row tile per iteration"""
        t = nl.load(x[i * 128:(i + 1) * 128, :])
        t = nisa.tensor_tensor(t, brow, op=nl.add)   # (comments after code, too)
        nl.store(out[i * 128:(i + 1) * 128, :],
                 # the store's value on a line of its own
                 value=finish(leaky(t)))
    return out


def kernel(x, bias):
    return leaky_clip(x, bias, clip=1.5, scale=2.0)
