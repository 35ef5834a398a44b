# SwiGLU, (silu(x @ w_gate) * (x @ w_up)) @ w_down, written "decomposed": the kernel is a driver that
# calls one small helper per stage (load a weight's K tiles, load and transpose a row tile, project it on a
# weight's column block, gate), tiles and buffers passed between them; every on-chip tensor is an
# nl.ndarray with an explicit buffer, every instruction a nisa.* call, slices are nl.ds, tile sizes
# are module constants. The nest is the bundled kernel's (three nests over the 512-row blocks, the
# gate and the hidden rows through HBM scratch tensors) but for x's row tiles, loaded K tile by K tile.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa

TILE_P = 128
TILE_N = 512


def load_weight(w, n_tiles, n_size):
    """Every K tile of w, (n_tiles, TILE_P, n_size), in SBUF."""
    tiles = nl.ndarray((n_tiles, nl.par_dim(TILE_P), n_size), dtype=w.dtype, buffer=nl.sbuf)
    for k in nl.affine_range(n_tiles):
        tiles[k] = nl.load(w[k])
    return tiles


def load_rows(x, i, j, k_tiles):
    """Row tile (i, j) of x as one (TILE_P, K) tile, its K tiles loaded one by one."""
    rows = nl.ndarray((nl.par_dim(TILE_P), k_tiles * TILE_P), dtype=x.dtype, buffer=nl.sbuf)
    for k in nl.affine_range(k_tiles):
        rows[:, nl.ds(k * TILE_P, TILE_P)] = nl.load(x[i, j, :, k, :])
    return rows


def transpose_rows(rows, ident, n_tiles, dtype):
    """The TILE_P-column blocks of a row tile, each transposed on the Tensor Engine."""
    rows_t = nl.ndarray((n_tiles, nl.par_dim(TILE_P), TILE_P), dtype=dtype, buffer=nl.sbuf)
    for k in nl.affine_range(n_tiles):
        t_psum = nisa.nc_matmul(rows[:, nl.ds(k * TILE_P, TILE_P)], ident, is_moving_onezero=True, is_transpose=True)
        rows_t[k] = nisa.tensor_copy(t_psum, dtype=dtype)
    return rows_t


def project(rows_t, w_tiles, n, n_tiles):
    """One TILE_N-column block of rows @ w, accumulated over the K tiles in PSUM, fp32 in SBUF."""
    acc = nl.zeros((TILE_P, TILE_N), dtype=nl.float32, buffer=nl.psum)
    for k in nl.affine_range(n_tiles):
        acc += nisa.nc_matmul(rows_t[k], w_tiles[k, :, nl.ds(n * TILE_N, TILE_N)])
    return nisa.tensor_copy(acc, dtype=nl.float32)


def gated(g, up, zero_bias):
    """silu(g) * up, silu as g / (1 + exp(-g))."""
    e = nisa.activation(op=nl.exp, data=g, bias=zero_bias, scale=-1.0)
    denom = nisa.tensor_scalar(data=e, op0=nl.add, operand0=1.0, engine=nisa.gpsimd_engine)
    inv = nisa.reciprocal(data=denom)
    silu = nisa.tensor_tensor(g, inv, op=nl.multiply)
    return nisa.tensor_tensor(silu, up, op=nl.multiply)


@nki.jit
def swiglu_kernel(x, w_up, w_down, w_gate):
    # x: (M/512, 4, 128, K/128, 128), w_up/w_gate: (K/128, 128, N), w_down: (N/128, 128, K).
    m_outer, m_inner, _, k_tiles, _ = x.shape
    _, _, n_size = w_up.shape
    n_tiles, _, d_size = w_down.shape
    m_tiles = m_outer * m_inner
    out = nl.ndarray((m_tiles, TILE_P, d_size), dtype=x.dtype, buffer=nl.shared_hbm)
    gate = nl.ndarray((m_tiles, TILE_P, n_size), dtype=x.dtype, buffer=nl.hbm)
    hidden = nl.ndarray((m_tiles, TILE_P, n_size), dtype=x.dtype, buffer=nl.hbm)
    identity = nl.shared_constant(np.identity(TILE_P, dtype=np.float32))
    ident = nl.ndarray((nl.par_dim(TILE_P), TILE_P), dtype=nl.float32, buffer=nl.sbuf)
    ident[...] = nl.load(identity)
    zero_bias = nisa.memset(shape=(TILE_P, 1), value=0.0, dtype=nl.float32)

    for i in nl.affine_range(m_outer):
        wg_tiles = load_weight(w_gate, k_tiles, n_size)
        for j in nl.affine_range(m_inner):
            rows = load_rows(x, i, j, k_tiles)
            rows_t = transpose_rows(rows, ident, k_tiles, x.dtype)
            for n in nl.affine_range(n_size // TILE_N):
                g = project(rows_t, wg_tiles, n, k_tiles)
                nl.store(gate[i * m_inner + j, :, nl.ds(n * TILE_N, TILE_N)], value=g)

    for i in nl.affine_range(m_outer):
        wu_tiles = load_weight(w_up, k_tiles, n_size)
        for j in nl.affine_range(m_inner):
            rows = load_rows(x, i, j, k_tiles)
            rows_t = transpose_rows(rows, ident, k_tiles, x.dtype)
            for n in nl.affine_range(n_size // TILE_N):
                up = project(rows_t, wu_tiles, n, k_tiles)
                g = nl.ndarray((nl.par_dim(TILE_P), TILE_N), dtype=x.dtype, buffer=nl.sbuf)
                g[...] = nl.load(gate[i * m_inner + j, :, nl.ds(n * TILE_N, TILE_N)])
                h = gated(g, up, zero_bias)
                nl.store(hidden[i * m_inner + j, :, nl.ds(n * TILE_N, TILE_N)], value=h)

    for i in nl.affine_range(m_outer):
        wd_tiles = load_weight(w_down, n_tiles, d_size)
        for j in nl.affine_range(m_inner):
            h_row = nl.ndarray((nl.par_dim(TILE_P), n_size), dtype=x.dtype, buffer=nl.sbuf)
            h_row[...] = nl.load(hidden[i * m_inner + j])
            h_t = transpose_rows(h_row, ident, n_tiles, x.dtype)
            for d in nl.affine_range(d_size // TILE_N):
                res = project(h_t, wd_tiles, d, n_tiles)
                nl.store(out[i * m_inner + j, :, nl.ds(d * TILE_N, TILE_N)], value=res)
    return out
