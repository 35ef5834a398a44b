# Row softmax over a (B, S, D) tensor in the NKI 0.7 style: plain Python `range` loops, integer
# indexing of the batch dim of HBM views (`x[b, rows, :]`), destination-first nisa.tensor_reduce
# (dst=, op=nl.max, axis=1, negate=True, keepdims=True), the exponent and its row sum in one
# nisa.activation(dst=, bias=, reduce_op=nl.add, reduce_res=, reduce_cmd=reset_reduce),
# nisa.reciprocal(dst=, data=), and the scaling by tensor_scalar(dst=) with a (P, 1) operand.
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def softmax_rows(x):
    B, S, D = x.shape
    P = nl.tile_size.pmax
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    for b in range(B):
        for s in range(S // P):
            rows = slice(s * P, (s + 1) * P)
            t = nl.ndarray((P, D), dtype=x.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=t, src=x[b, rows, :])
            neg_max = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
            nisa.tensor_reduce(dst=neg_max, op=nl.max, data=t, axis=1, negate=True, keepdims=True)
            e = nl.ndarray((P, D), dtype=nl.float32, buffer=nl.sbuf)
            total = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
            nisa.activation(dst=e, op=nl.exp, data=t, bias=neg_max, reduce_op=nl.add,
                            reduce_res=total, reduce_cmd=nisa.reduce_cmd.reset_reduce)
            inv = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
            nisa.reciprocal(dst=inv, data=total)
            y = nl.ndarray((P, D), dtype=x.dtype, buffer=nl.sbuf)
            nisa.tensor_scalar(dst=y, data=e, op0=nl.multiply, operand0=inv)
            nisa.dma_copy(dst=out[b, rows, :], src=y)
    return out
