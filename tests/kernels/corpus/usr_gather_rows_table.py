# An embedding-style lookup inside each partition with nl.gather_flattened: every partition holds
# one row of a table and gathers the columns its int32 index tile names (np.take_along_axis per
# partition); two index tiles are gathered and combined, the index tile is loaded with an
# explicit dtype check, and the table is scaled once before the gathers.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(table, idx_a, idx_b):
    P, V = table.shape
    _, K = idx_a.shape
    assert idx_a.dtype == nl.int32 and idx_b.shape == idx_a.shape
    out = nl.ndarray((P, K), dtype=table.dtype, buffer=nl.shared_hbm)
    t = nl.multiply(nl.load(table), 0.5)
    ia = nl.load(idx_a)
    ib = nl.load(idx_b)
    ga = nl.gather_flattened(data=t, indices=ia)
    gb = nl.gather_flattened(t, ib)
    nl.store(out, value=nl.maximum(ga, gb))
    return out
