# softmax(lhs @ rhs) over the last axis, written "decomposed": the kernel is a driver that calls one
# small helper per stage (transpose a row tile, score it against the batch's rhs and take its row
# maxima, normalise a score row), tiles and buffers passed between them; every on-chip tensor is an
# nl.ndarray with an explicit buffer, every instruction a nisa.* call, slices are nl.ds, tile sizes
# are module constants. The nest is the bundled kernel's (all score rows of a batch kept on chip).
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa

TILE_M = 128
TILE_N = 512


def transpose_rows(lhs, b, m, ident, k_size):
    """The row tile m of batch b, transposed on the Tensor Engine: (k_size, TILE_M) in SBUF."""
    rows = nl.ndarray((nl.par_dim(TILE_M), k_size), dtype=lhs.dtype, buffer=nl.sbuf)
    rows[...] = nl.load(lhs[b, nl.ds(m * TILE_M, TILE_M), :])
    rows_t_psum = nisa.nc_matmul(rows, ident, is_moving_onezero=True, is_transpose=True)
    rows_t = nl.ndarray((nl.par_dim(k_size), TILE_M), dtype=lhs.dtype, buffer=nl.sbuf)
    rows_t[...] = nisa.tensor_copy(rows_t_psum, dtype=lhs.dtype)
    return rows_t


def score_rows(rows_t, rhs_tile, scores, neg_max, m, n_chunks):
    """scores[m] = rows @ rhs, chunk by chunk; neg_max[m] = -max of each score row."""
    chunk_max = nl.ndarray((nl.par_dim(TILE_M), n_chunks), dtype=nl.float32, buffer=nl.sbuf)
    for n in nl.affine_range(n_chunks):
        acc = nisa.nc_matmul(rows_t, rhs_tile[:, nl.ds(n * TILE_N, TILE_N)])
        scores[m, :, nl.ds(n * TILE_N, TILE_N)] = nisa.tensor_copy(acc, dtype=nl.float32)
        chunk_max[:, nl.ds(n, 1)] = nisa.tensor_reduce(nl.max, data=scores[m, :, nl.ds(n * TILE_N, TILE_N)],
                                                       axis=[1], keepdims=True)
    neg_max[m] = nisa.tensor_reduce(nl.max, data=chunk_max, axis=[1], negate=True, keepdims=True)


def normalize_rows(scores, neg_max, m):
    """exp(scores[m] - max) / its row sums."""
    probs = nisa.activation(op=nl.exp, data=scores[m], bias=neg_max[m], scale=1.0)
    row_sum = nisa.tensor_reduce(nl.add, data=probs, axis=[1], keepdims=True)
    inv_sum = nisa.reciprocal(data=row_sum)
    return nisa.tensor_scalar(data=probs, op0=nl.multiply, operand0=inv_sum)


@nki.jit
def bmm_softmax_kernel(lhs, rhs):
    batch, m_size, k_size = lhs.shape
    _, _, n_size = rhs.shape
    m_tiles = m_size // TILE_M
    n_chunks = n_size // TILE_N
    out = nl.ndarray((batch, m_tiles, TILE_M, n_size), dtype=lhs.dtype, buffer=nl.shared_hbm)
    identity = nl.shared_constant(np.identity(TILE_M, dtype=np.float32))
    ident = nl.ndarray((nl.par_dim(TILE_M), TILE_M), dtype=nl.float32, buffer=nl.sbuf)
    ident[...] = nl.load(identity)
    for b in nl.affine_range(batch):
        rhs_tile = nl.ndarray((nl.par_dim(k_size), n_size), dtype=rhs.dtype, buffer=nl.sbuf)
        rhs_tile[...] = nl.load(rhs[b])
        scores = nl.ndarray((m_tiles, nl.par_dim(TILE_M), n_size), dtype=nl.float32, buffer=nl.sbuf)
        neg_max = nl.ndarray((m_tiles, nl.par_dim(TILE_M), 1), dtype=nl.float32, buffer=nl.sbuf)
        for m in nl.affine_range(m_tiles):
            rows_t = transpose_rows(lhs, b, m, ident, k_size)
            score_rows(rows_t, rhs_tile, scores, neg_max, m, n_chunks)
        for m in nl.affine_range(m_tiles):
            res = normalize_rows(scores, neg_max, m)
            nl.store(out[b, m], value=res)
    return out
