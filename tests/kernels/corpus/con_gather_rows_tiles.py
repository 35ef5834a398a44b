import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


@nki.jit
def kernel(table, ids):
    # Indirect row gathers (an embedding lookup): rows of `table` chosen by an int32 index tile
    # loaded from `ids`, scaled and stored; then every fourth row (an iota index tile with a
    # loop-dependent offset) of the gathered output read back from HBM and exponentiated.
    V, D = table.shape
    T, P = ids.shape
    looked = nl.ndarray((T * P, D), dtype=table.dtype, buffer=nl.shared_hbm)
    strided = nl.ndarray((T * P, D), dtype=table.dtype, buffer=nl.shared_hbm)
    i_p = nl.arange(P)[:, None]
    i_f = nl.arange(D)[None, :]
    for t in nl.affine_range(T):
        idx = nl.load(ids[t].reshape((P, 1)))
        rows = nl.load(table[idx, i_f])
        nl.store(looked[t * P:(t + 1) * P, :], value=nl.multiply(rows, 2.0))
    for r in nl.affine_range(T):
        pick = nisa.iota(T * i_p + r, dtype=nl.int32)
        back = nl.load(looked[pick[i_p, 0], i_f])
        nl.store(strided[r * P + i_p, i_f], value=nl.exp(back))
    return looked, strided
