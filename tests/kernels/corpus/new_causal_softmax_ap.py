# Newer `nki` API, destination first throughout: loads through tensor.ap access patterns,
# nisa.affine_select and nisa.iota in their pattern form (a causal mask, row ids), activation /
# tensor_reduce / reciprocal / tensor_scalar writing into dst, nl.fori_loop with a helper
# function, and `with nl.no_reorder():`.
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def kernel(x):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    n_tiles = x.shape[0] // 128
    for t in nl.affine_range(n_tiles):
        tile = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=tile, src=x.ap(pattern=[[128, 128], [1, 128]], offset=t * 128 * 128))
        # keep column j of row p when p - j >= 0 (a causal mask inside each 128-row block)
        masked = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.sbuf)
        nisa.affine_select(dst=masked, pattern=[[-1, 128]], channel_multiplier=1, on_true_tile=tile,
                           on_false_value=-9984.0, cmp_op=nl.greater_equal)
        neg_max = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_reduce(dst=neg_max, op=nl.maximum, data=masked, axis=1, negate=True)
        e = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.sbuf)
        nisa.activation(dst=e, op=nl.exp, data=masked, bias=neg_max)
        s = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_reduce(dst=s, op=nl.add, data=e, axis=1)
        r = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.reciprocal(dst=r, data=s)
        y = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_scalar(dst=y, data=e, op0=nl.multiply, operand0=r)
        nisa.dma_copy(dst=out[t * 128:(t + 1) * 128, :], src=y)

    ids = nl.ndarray((128, 4), dtype=nl.float32, buffer=nl.shared_hbm)
    id_tile = nl.ndarray((128, 4), dtype=nl.float32, buffer=nl.sbuf)
    nisa.iota(dst=id_tile, pattern=[[1, 4]], offset=0, channel_multiplier=4)

    def bump(i):
        nisa.tensor_scalar(dst=id_tile, data=id_tile, op0=nl.add, operand0=1.0)

    nl.fori_loop(0, 3, bump)
    with nl.no_reorder():
        nisa.dma_copy(dst=ids, src=id_tile)
    return out, ids
