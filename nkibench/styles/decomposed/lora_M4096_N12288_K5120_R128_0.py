# x @ w + (x @ a) @ b (LoRA), written "decomposed": the kernel is a driver that calls one small
# helper per stage (load a weight's K tiles, load and transpose a row tile, the low-rank projection
# of a row tile, one column block of a row tile), tiles and buffers passed between them; every
# on-chip tensor is an nl.ndarray with an explicit buffer, every instruction a nisa.* call, slices
# are nl.ds, tile sizes are module constants. The nest is the bundled kernel's (the low-rank rows for
# every row tile first, then per 1024-column block of w every row tile re-loaded and re-transposed).
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa

TILE_P = 128
TILE_N = 512
BLOCK = 1024
CHUNK = 8


def load_weight_block(w, k_tiles, col0, width):
    """Columns [col0, col0 + width) of every K tile of w, (k_tiles, TILE_P, width), in SBUF."""
    tiles = nl.ndarray((k_tiles, nl.par_dim(TILE_P), width), dtype=w.dtype, buffer=nl.sbuf)
    for k in nl.affine_range(k_tiles):
        tiles[k] = nl.load(w[k, :, nl.ds(col0, width)])
    return tiles


def transpose_rows(x, i, j, ident, k_tiles):
    """Row tile (i, j) of x, its K tiles transposed on the Tensor Engine, CHUNK tiles per load."""
    rows_t = nl.ndarray((k_tiles, nl.par_dim(TILE_P), TILE_P), dtype=x.dtype, buffer=nl.sbuf)
    for c in nl.affine_range(k_tiles // CHUNK):
        rows = nl.ndarray((nl.par_dim(TILE_P), CHUNK, TILE_P), dtype=x.dtype, buffer=nl.sbuf)
        rows[...] = nl.load(x[i, j, :, nl.ds(c * CHUNK, CHUNK), :])
        for q in nl.affine_range(CHUNK):
            t_psum = nisa.nc_matmul(rows[:, q, :], ident, is_moving_onezero=True, is_transpose=True)
            rows_t[c * CHUNK + q] = nisa.tensor_copy(t_psum, dtype=x.dtype)
    return rows_t


def low_rank_rows(a_tiles, rows_t, k_tiles, rank):
    """(rows @ a)^T = a^T @ rows^T, (rank, TILE_P) in SBUF."""
    acc = nl.zeros((rank, TILE_P), dtype=nl.float32, buffer=nl.psum)
    for k in nl.affine_range(k_tiles):
        acc += nisa.nc_matmul(a_tiles[k], rows_t[k])
    return nisa.tensor_copy(acc, dtype=nl.float32)


def column_block(rows_t, w_tiles, xa_t_row, b_tile, k_tiles, dtype):
    """One BLOCK-column block of rows @ w + (rows @ a) @ b, TILE_N columns per PSUM tile."""
    res = nl.ndarray((nl.par_dim(TILE_P), BLOCK), dtype=dtype, buffer=nl.sbuf)
    for h in nl.affine_range(BLOCK // TILE_N):
        acc = nl.zeros((TILE_P, TILE_N), dtype=nl.float32, buffer=nl.psum)
        for k in nl.affine_range(k_tiles):
            acc += nisa.nc_matmul(rows_t[k], w_tiles[k, :, nl.ds(h * TILE_N, TILE_N)])
        acc += nisa.nc_matmul(xa_t_row, b_tile[:, nl.ds(h * TILE_N, TILE_N)])
        res[:, nl.ds(h * TILE_N, TILE_N)] = nisa.tensor_copy(acc, dtype=dtype)
    return res


@nki.jit
def lora_kernel(x, w, a, b):
    # x: (M/512, 4, 128, K/128, 128), w: (K/128, 128, N), a: (K/128, 128, R), b: (R, N).
    m_outer, m_inner, _, k_tiles, _ = x.shape
    _, _, n_size = w.shape
    _, _, rank = a.shape
    m_tiles = m_outer * m_inner
    out = nl.ndarray((m_outer, m_inner, TILE_P, n_size // TILE_P, TILE_P), dtype=x.dtype, buffer=nl.shared_hbm)
    identity = nl.shared_constant(np.identity(TILE_P, dtype=np.float32))
    ident = nl.ndarray((nl.par_dim(TILE_P), TILE_P), dtype=nl.float32, buffer=nl.sbuf)
    ident[...] = nl.load(identity)

    a_tiles = load_weight_block(a, k_tiles, 0, rank)
    xa_t = nl.ndarray((m_tiles, nl.par_dim(rank), TILE_P), dtype=nl.float32, buffer=nl.sbuf)
    for i in nl.affine_range(m_outer):
        for j in nl.affine_range(m_inner):
            rows_t = transpose_rows(x, i, j, ident, k_tiles)
            xa_t[i * m_inner + j] = low_rank_rows(a_tiles, rows_t, k_tiles, rank)

    for n in nl.affine_range(n_size // BLOCK):
        w_tiles = load_weight_block(w, k_tiles, n * BLOCK, BLOCK)
        b_tile = nl.ndarray((nl.par_dim(rank), BLOCK), dtype=b.dtype, buffer=nl.sbuf)
        b_tile[...] = nl.load(b[:, nl.ds(n * BLOCK, BLOCK)])
        for i in nl.affine_range(m_outer):
            for j in nl.affine_range(m_inner):
                rows_t = transpose_rows(x, i, j, ident, k_tiles)
                res = column_block(rows_t, w_tiles, xa_t[i * m_inner + j], b_tile, k_tiles, x.dtype)
                for q in nl.affine_range(BLOCK // TILE_P):
                    nl.store(out[i, j, :, n * (BLOCK // TILE_P) + q, :], value=res[:, nl.ds(q * TILE_P, TILE_P)])
    return out
