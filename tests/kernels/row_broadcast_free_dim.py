# Legacy API, the broadcast spelled in the free dim's index (`0 * nl.arange(128)[:, None]` added to
# the column arange) of a row indexed by an integer. out[c, m] = sum_s x[c, m] * w[s, m].
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x, w):
    C, M = x.shape
    S, _ = w.shape
    out = nl.ndarray((C, M), dtype=x.dtype, buffer=nl.shared_hbm)
    for ct in nl.affine_range(C // 128):
        x_t = nl.load(x[ct * 128:(ct + 1) * 128, :])
        acc = nl.zeros((128, M), dtype=nl.float32, buffer=nl.sbuf)
        for s in nl.sequential_range(S):
            w_t = nl.load(w[s, 0 * nl.arange(128)[:, None] + nl.arange(M)[None, :]])
            acc[...] = nl.add(acc, nl.multiply(x_t, w_t))
        nl.store(out[ct * 128:(ct + 1) * 128, :], value=acc)
    return out
