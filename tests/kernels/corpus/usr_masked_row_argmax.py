# Row max and first arg-max over a per-row prefix of the columns, as a user builds it from the
# selection instructions: column indices materialised with nisa.iota on an nl.mgrid grid, the
# per-row limit loaded as a (P, 1) tile, nisa.select_reduce with a fused row max into reduce_res,
# `==` and `<` between a tile and a (P, 1) column, nl.where with a scalar, nl.min(keepdims=True),
# an int32 output, and a helper with a keyword default returning a tuple.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


def masked_max_and_index(vals, cols, limit, *, fill=-3.0e38):
    keep = cols < limit
    row_max = nl.ndarray((vals.shape[0], 1), dtype=nl.float32, buffer=nl.sbuf)
    masked = nisa.select_reduce(keep, vals, fill, reduce_res=row_max, reduce_op=nl.max)
    hit = (masked == row_max) & keep
    first = nl.min(nl.where(hit, cols, float(vals.shape[1])), axis=1, keepdims=True)
    return row_max, first


@nki.jit
def row_argmax(x, limits):
    M, N = x.shape
    P = nl.tile_size.pmax
    out_max = nl.ndarray((M, 1), dtype=nl.float32, buffer=nl.shared_hbm)
    out_idx = nl.ndarray((M, 1), dtype=nl.int32, buffer=nl.shared_hbm)
    i_p, i_f = nl.mgrid[0:P, 0:N]
    cols = nisa.iota(i_f, dtype=nl.float32)
    for t in nl.affine_range(M // P):
        vals = nl.load(x[t * P + i_p, i_f])
        limit = nl.load(limits[t * P:(t + 1) * P, :])
        row_max, first = masked_max_and_index(vals, cols, limit)
        nl.store(out_max[t * P:(t + 1) * P, :], value=row_max)
        nl.store(out_idx[t * P:(t + 1) * P, :], value=nl.copy(first, dtype=nl.int32))
    return out_max, out_idx
