# Causal softmax over attention scores as a samples-style kernel: nisa.iota builds each row's
# causal bound, nisa.range_select keeps the columns below it (on_false_value = fp32 min) and
# reduces the row max into reduce_res in the same instruction, then the Scalar Engine's exp with
# the negated max as bias, a row sum, a reciprocal and a scale. Column tiles of 128 run in an
# nl.affine_range with range_start giving each tile's first column.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


@nki.jit
def causal_softmax(scores):
    S, _ = scores.shape
    P = nl.tile_size.pmax
    out = nl.ndarray((S, S), dtype=scores.dtype, buffer=nl.shared_hbm)
    n_col = S // P
    for r in nl.affine_range(S // P):
        row_ids = nisa.iota(nl.arange(P)[:, None] + r * P + 1, dtype=nl.float32)
        masked = nl.ndarray((n_col, nl.par_dim(P), P), dtype=nl.float32)
        tile_max = nl.ndarray((P, n_col), dtype=nl.float32)
        for c in nl.affine_range(n_col):
            s = nl.load(scores[r * P:(r + 1) * P, c * P:(c + 1) * P])
            masked[c] = nisa.range_select(on_true_tile=s, comp_op0=nl.greater_equal, comp_op1=nl.less,
                                          bound0=0.0, bound1=row_ids, range_start=c * P,
                                          reduce_res=tile_max[:, c:c + 1], reduce_op=nl.maximum,
                                          on_false_value=nl.fp32.min)
        row_max = nisa.tensor_reduce(nl.maximum, tile_max, axis=[1], keepdims=True)
        neg_max = nl.multiply(row_max, -1.0)
        exps = nl.ndarray((n_col, nl.par_dim(P), P), dtype=nl.float32)
        tile_sum = nl.ndarray((P, n_col), dtype=nl.float32)
        for c in nl.affine_range(n_col):
            exps[c] = nisa.activation(op=nl.exp, data=masked[c], bias=neg_max, scale=1.0)
            tile_sum[:, c:c + 1] = nl.sum(exps[c], axis=[1], keepdims=True)
        inv = nisa.reciprocal(nl.sum(tile_sum, axis=[1], keepdims=True))
        for c in nl.affine_range(n_col):
            nl.store(out[r * P:(r + 1) * P, c * P:(c + 1) * P], value=nl.multiply(exps[c], inv))
    return out


kernel = causal_softmax
