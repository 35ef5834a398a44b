# Row softmax in two loop nests, as nkibench/styles/nki_api/gqa_full: the first loads every row
# tile and writes its negated maximum into column i of one [128, tiles] tile, the second
# exponentiates with that column as the bias and normalises. Same program as
# softmax_nests_own_tile.py, which keeps each maximum in a [128, 1] tile of its own.
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def kernel(x):
    rows, cols = x.shape
    tiles = rows // 128
    out = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    neg_max = nl.ndarray((128, tiles), dtype=nl.float32, buffer=nl.sbuf)
    rows_in = []
    for i in nl.affine_range(tiles):
        t = nl.ndarray((128, cols), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[i * 128:(i + 1) * 128, :])
        nisa.tensor_reduce(dst=neg_max[:, i:i + 1], op=nl.max, data=t, axis=1, negate=True, keepdims=True)
        rows_in.append(t)
    for i in nl.affine_range(tiles):
        e = nl.ndarray((128, cols), dtype=nl.float32, buffer=nl.sbuf)
        nisa.activation(dst=e, op=nl.exp, data=rows_in[i], bias=neg_max[:, i:i + 1], scale=1.0)
        s = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_reduce(dst=s, op=nl.add, data=e, axis=1, keepdims=True)
        r = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.reciprocal(dst=r, data=s)
        y = nl.ndarray((128, cols), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_scalar(dst=y, data=e, op0=nl.multiply, operand0=r)
        nisa.dma_copy(dst=out[i * 128:(i + 1) * 128, :], src=y)
    return out
