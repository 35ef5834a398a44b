# Indirect DMA scatter: out = base, then row n of updates -> row labels[n] of out (nl.store with
# an index tile on the destination's partition dim); a repeated label keeps the last row.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(base, updates, labels):
    v, d = base.shape
    out = nl.ndarray((v, d), dtype=base.dtype, buffer=nl.shared_hbm)
    i_p = nl.arange(128)[:, None]
    i_f = nl.arange(d)[None, :]
    for t in nl.sequential_range(v // 128):
        nl.store(out[t * 128 + i_p, i_f], value=nl.load(base[t * 128 + i_p, i_f]))
    for t in nl.sequential_range(labels.shape[0] // 128):
        idx = nl.load(labels[t * 128 + i_p, 0])
        rows = nl.load(updates[t * 128 + i_p, i_f])
        nl.store(out[idx[i_p, 0], i_f], value=rows)
    return out
