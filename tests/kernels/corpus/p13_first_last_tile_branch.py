# A first version that handles the ragged last row tile with a Python `if` on the loop variable:
# full tiles take one branch, the last (44 rows) another with its own slice sizes; nl.ds for the
# rows, nl.rms_norm's formula spelled out with nl.mean and nl.rsqrt, the weight loaded per tile.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x, w):
    n, d = x.shape
    ntiles = (n + 127) // 128
    out = nl.ndarray((n, d), dtype=x.dtype, buffer=nl.shared_hbm)
    for t in range(ntiles):
        if t == ntiles - 1 and n % 128 != 0:
            rows = n % 128
        else:
            rows = 128
        wt = nl.load(w[0:1, :]).broadcast_to((rows, d))
        xt = nl.load(x[nl.ds(t * 128, rows), :])
        ms = nl.mean(xt * xt, axis=1, keepdims=True)
        y = xt * nl.rsqrt(ms + 1e-6) * wt
        nl.store(out[nl.ds(t * 128, rows), :], value=y)
    return out
