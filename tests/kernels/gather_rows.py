# Indirect DMA gather (embedding lookup): row labels[n] of table -> row n of out, through an
# int32 index tile in SBUF (nki-language.md 7.1, nl.load indirect form).
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(table, labels):
    n, d = labels.shape[0], table.shape[1]
    out = nl.ndarray((n, d), dtype=table.dtype, buffer=nl.shared_hbm)
    i_p = nl.arange(128)[:, None]
    i_f = nl.arange(d)[None, :]
    for t in nl.affine_range(n // 128):
        idx = nl.load(labels[t * 128 + i_p, 0])
        rows = nl.load(table[idx[i_p, 0], i_f])
        nl.store(out[t * 128 + i_p, i_f], value=rows)
    return out
