# Causal softmax in the newer `nki` API (NKI 0.6): a triangular nest (the column tiles of row tile
# r are `range(r + 1)`, a plain Python range inside an nl.affine_range), the diagonal and the tiles
# below it kept by nisa.affine_select with an access pattern ([[-1, P]], channel_multiplier=1,
# offset (r - c) * P: keep where row - column >= 0), the rest of the row left at a large negative
# value by nisa.memset(dst=), then tensor_reduce / activation(reduce_res=) / reciprocal /
# tensor_scalar, all destination-first.
import nki
import nki.isa as nisa
import nki.language as nl

P = 128
NEG = -30000.0


@nki.jit
def causal_softmax(scores):
    S = scores.shape[0]
    out = nl.ndarray((S, S), dtype=scores.dtype, buffer=nl.shared_hbm)
    for r in nl.affine_range(S // P):
        row = nl.ndarray((P, S), dtype=nl.float32, buffer=nl.sbuf)
        nisa.memset(dst=row, value=NEG)
        for c in range(r + 1):
            s = nl.ndarray((P, P), dtype=nl.float32, buffer=nl.sbuf)
            nisa.dma_copy(dst=s, src=scores[r * P:(r + 1) * P, c * P:(c + 1) * P])
            nisa.affine_select(dst=row[:, c * P:(c + 1) * P], pattern=[[-1, P]], channel_multiplier=1,
                               on_true_tile=s, on_false_value=NEG, cmp_op=nl.greater_equal, offset=(r - c) * P)
        mx = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_reduce(dst=mx, op=nl.maximum, data=row, axis=[1], keepdims=True)
        neg_mx = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_scalar(dst=neg_mx, data=mx, op0=nl.multiply, operand0=-1.0)
        e = nl.ndarray((P, S), dtype=nl.float32, buffer=nl.sbuf)
        ssum = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.activation(dst=e, op=nl.exp, data=row, bias=neg_mx, reduce_op=nl.add, reduce_res=ssum)
        inv = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.reciprocal(dst=inv, data=ssum)
        y = nl.ndarray((P, S), dtype=scores.dtype, buffer=nl.sbuf)
        nisa.tensor_scalar(dst=y, data=e, op0=nl.multiply, operand0=inv)
        nisa.dma_copy(dst=out[r * P:(r + 1) * P, :], src=y)
    return out


kernel = causal_softmax
