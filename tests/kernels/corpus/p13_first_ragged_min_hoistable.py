# A first version of `y = silu(x) * w` over 300 rows and 640 columns: the last row tile and the
# last column tile cut by min() and written as slices, the weight row block loaded inside the row
# loop although it does not depend on the row tile, and broadcast there each time.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x, w):
    n, d = x.shape
    P, F = 128, 512
    out = nl.ndarray((n, d), dtype=x.dtype, buffer=nl.shared_hbm)
    for c in range((d + F - 1) // F):
        c0 = c * F
        cw = min(F, d - c0)
        for r in range((n + P - 1) // P):
            r0 = r * P
            rh = min(P, n - r0)
            w_row = nl.load(w[0:1, c0:c0 + cw])
            w_b = nl.broadcast_to(w_row, shape=(rh, cw))
            xt = nl.load(x[r0:r0 + rh, c0:c0 + cw])
            y = nl.silu(xt) * w_b
            nl.store(out[r0:r0 + rh, c0:c0 + cw], value=y)
    return out
