# A ragged row count in the newer `nki` API, where masks are gone: plain `range` loops (NKI 0.7),
# the last tile's height computed with min() and every access sliced to it (`t[:h, :]`), so the
# instruction shapes shrink on the last tile. Row sums of exp(x - 1) come out of one
# nisa.activation(reduce_res=) and are written next to the result.
import nki
import nki.isa as nisa
import nki.language as nl

P = nl.tile_size.pmax


@nki.jit
def exp_rows(x):
    M, N = x.shape
    out = nl.ndarray((M, N), dtype=x.dtype, buffer=nl.shared_hbm)
    sums = nl.ndarray((M, 1), dtype=nl.float32, buffer=nl.shared_hbm)
    minus_one = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
    nisa.memset(dst=minus_one, value=-1.0)
    for r in range((M + P - 1) // P):
        h = min(P, M - r * P)
        t = nl.ndarray((P, N), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t[:h, :], src=x[r * P:r * P + h, :])
        e = nl.ndarray((P, N), dtype=nl.float32, buffer=nl.sbuf)
        s = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.activation(dst=e[:h, :], op=nl.exp, data=t[:h, :], bias=minus_one[:h, :], reduce_op=nl.add,
                        reduce_res=s[:h, :])
        nisa.dma_copy(dst=out[r * P:r * P + h, :], src=e[:h, :])
        nisa.dma_copy(dst=sums[r * P:r * P + h, :], src=s[:h, :])
    return out, sums


kernel = exp_rows
