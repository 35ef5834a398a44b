# Row softmax over 200 rows in the newer `nki` API: tensor_reduce(dst=, op=nl.max, negate=True,
# keepdims=True) as the exp's bias, activation(dst=, op=nl.exp, bias=, reduce_op=nl.add,
# reduce_res=) giving the row sums in the same instruction, reciprocal(dst=), and a (P, 1)
# tensor_scalar; the ragged last row tile by min(), the loop a plain range.
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def softmax_rows(x):
    n_rows, n_cols = x.shape
    P = nl.tile_size.pmax
    out = nl.ndarray((n_rows, n_cols), dtype=nl.float32, buffer=nl.shared_hbm)
    n_tiles = (n_rows + P - 1) // P
    for i in range(n_tiles):
        start = i * P
        size = min(P, n_rows - start)
        t = nl.ndarray((P, n_cols), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=t[:size], src=x[nl.ds(start, size), :])
        neg_max = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_reduce(dst=neg_max[:size], op=nl.max, data=t[:size], axis=1, negate=True, keepdims=True)
        sums = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
        e = nl.ndarray((P, n_cols), dtype=nl.float32, buffer=nl.sbuf)
        nisa.activation(dst=e[:size], op=nl.exp, data=t[:size], bias=neg_max[:size], scale=1.0,
                        reduce_op=nl.add, reduce_res=sums[:size])
        inv = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.reciprocal(dst=inv[:size], data=sums[:size])
        probs = nl.ndarray((P, n_cols), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_scalar(dst=probs[:size], data=e[:size], op0=nl.multiply, operand0=inv[:size])
        nisa.dma_copy(dst=out[nl.ds(start, size), :], src=probs[:size])
    return out
