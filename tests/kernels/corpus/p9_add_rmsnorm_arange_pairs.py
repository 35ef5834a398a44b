import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def add_rmsnorm(x, res, g, eps=1e-6):
    """(x + res) normalised by its RMS and scaled by g: an nl.arange pair (ip, jf) indexing
    every load and store, the gain loaded once as a (1, D) row and broadcast over the
    partitions with nl.broadcast_to, nl.mean for the statistics, and a second output (the
    residual sum) returned in a tuple."""
    N, D = x.shape
    ip = nl.arange(128)[:, None]
    jf = nl.arange(D)[None, :]
    i0 = nl.arange(1)[:, None]
    normed = nl.ndarray((N, D), dtype=x.dtype, buffer=nl.shared_hbm)
    summed = nl.ndarray((N, D), dtype=x.dtype, buffer=nl.shared_hbm)
    gain = nl.broadcast_to(nl.load(g[i0, jf]), shape=(128, D))
    for t in nl.affine_range(N // 128):
        h = nl.add(nl.load(x[t * 128 + ip, jf]), nl.load(res[t * 128 + ip, jf]))
        nl.store(summed[t * 128 + ip, jf], value=h)
        ms = nl.mean(nl.square(h), axis=[1])
        inv = nl.rsqrt(nl.add(ms, eps))
        nl.store(normed[t * 128 + ip, jf], value=nl.multiply(nl.multiply(h, inv), gain))
    return normed, summed
