# Masked row max for variable-length sequences, legacy API mixed with an ISA selection: the column
# index of every element by nisa.iota(nl.arange(...)[None, :], dtype=) (the same on every
# partition), a uint8 predicate `col < length` from nl.less against a (128, 1) length column,
# nisa.select_reduce(pred, x, -1e9, reduce_res=, reduce_op=nl.maximum) giving the masked tile and
# its row max, two outputs.
import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


@nki.jit
def masked_row_max(x, lengths):
    n, d = x.shape
    masked = nl.ndarray((n, d), dtype=nl.float32, buffer=nl.shared_hbm)
    row_max = nl.ndarray((n, 1), dtype=nl.float32, buffer=nl.shared_hbm)
    cols = nisa.iota(nl.arange(d)[None, :] + 0 * nl.arange(128)[:, None], dtype=nl.float32)
    for i in nl.affine_range(n // 128):
        xt = nl.load(x[i * 128:(i + 1) * 128, :])
        ln = nl.load(lengths[i * 128:(i + 1) * 128, :])
        pred = nl.less(cols, ln, dtype=nl.uint8)
        mx = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
        sel = nisa.select_reduce(pred, xt, -1.0e9, reduce_res=mx, reduce_op=nl.maximum)
        nl.store(masked[i * 128:(i + 1) * 128, :], value=sel)
        nl.store(row_max[i * 128:(i + 1) * 128, :], value=mx)
    return masked, row_max
