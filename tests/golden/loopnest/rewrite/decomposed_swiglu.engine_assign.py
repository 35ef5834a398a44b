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
        wg_tiles = nl.ndarray((8, nl.par_dim(128), 3072), dtype=nl.float32, buffer=nl.sbuf)
        for k in nl.affine_range(8):
            wg_tiles[k, :, :] = nl.load(w_gate[k, :, :])
        for j in nl.affine_range(m_inner):
            rows = nl.ndarray((128, 1024), dtype=nl.float32, buffer=nl.sbuf)
            for k in nl.affine_range(8):
                rows[:, 128*k:128*k + 128] = nl.load(x[i, j, :, k, :])
            rows_t = nl.ndarray((8, nl.par_dim(128), 128), dtype=nl.float32, buffer=nl.sbuf)
            for k in nl.affine_range(8):
                t_psum_2 = nisa.nc_matmul(rows[:, 128*k:128*k + 128], ident, is_moving_onezero=True, is_transpose=True)
                rows_t[k, :, :] = nisa.tensor_copy(t_psum_2, dtype=nl.float32)
            for n in nl.affine_range(n_size // TILE_N):
                acc_2 = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.psum)
                for k in nl.affine_range(8):
                    acc_2[...] += nisa.nc_matmul(rows_t[k, :, :], wg_tiles[k, :, 512*n:512*n + 512])
                g = nisa.tensor_copy(acc_2, dtype=nl.float32)
                nl.store(gate[i * m_inner + j, :, nl.ds(n * TILE_N, TILE_N)], value=g)

    for i in nl.affine_range(m_outer):
        wu_tiles = nl.ndarray((8, nl.par_dim(128), 3072), dtype=nl.float32, buffer=nl.sbuf)
        for k in nl.affine_range(8):
            wu_tiles[k, :, :] = nl.load(w_up[k, :, :])
        for j in nl.affine_range(m_inner):
            rows = nl.ndarray((128, 1024), dtype=nl.float32, buffer=nl.sbuf)
            for k in nl.affine_range(8):
                rows[:, 128*k:128*k + 128] = nl.load(x[i, j, :, k, :])
            rows_t = nl.ndarray((8, nl.par_dim(128), 128), dtype=nl.float32, buffer=nl.sbuf)
            for k in nl.affine_range(8):
                t_psum_3 = nisa.nc_matmul(rows[:, 128*k:128*k + 128], ident, is_moving_onezero=True, is_transpose=True)
                rows_t[k, :, :] = nisa.tensor_copy(t_psum_3, dtype=nl.float32)
            for n in nl.affine_range(n_size // TILE_N):
                acc_3 = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.psum)
                for k in nl.affine_range(8):
                    acc_3[...] += nisa.nc_matmul(rows_t[k, :, :], wu_tiles[k, :, 512*n:512*n + 512])
                up = nisa.tensor_copy(acc_3, dtype=nl.float32)
                g = nl.ndarray((nl.par_dim(TILE_P), TILE_N), dtype=x.dtype, buffer=nl.sbuf)
                g[...] = nl.load(gate[i * m_inner + j, :, nl.ds(n * TILE_N, TILE_N)])
                e = nisa.activation(op=nl.exp, data=g, bias=zero_bias, scale=-1.0)
                denom = nisa.tensor_scalar(data=e, op0=nl.add, operand0=1.0, engine=nisa.gpsimd_engine)
                inv = nisa.reciprocal(data=denom)
                silu = nisa.tensor_tensor(g, inv, op=nl.multiply)
                h = nisa.tensor_tensor(silu, up, op=nl.multiply)
                nl.store(hidden[i * m_inner + j, :, nl.ds(n * TILE_N, TILE_N)], value=h)

    for i in nl.affine_range(m_outer):
        wd_tiles = nl.ndarray((24, nl.par_dim(128), 1024), dtype=nl.float32, buffer=nl.sbuf)
        for k in nl.affine_range(24):
            wd_tiles[k, :, :] = nl.load(w_down[k, :, :])
        for j in nl.affine_range(m_inner):
            h_row = nl.ndarray((nl.par_dim(TILE_P), n_size), dtype=x.dtype, buffer=nl.sbuf)
            h_row[...] = nl.load(hidden[i * m_inner + j])
            h_t = nl.ndarray((24, nl.par_dim(128), 128), dtype=nl.float32, buffer=nl.sbuf)
            for k in nl.affine_range(24):
                t_psum = nisa.nc_matmul(h_row[:, 128*k:128*k + 128], ident, is_moving_onezero=True, is_transpose=True)
                h_t[k, :, :] = nisa.tensor_copy(t_psum, dtype=nl.float32)
            for d in nl.affine_range(d_size // TILE_N):
                acc = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.psum)
                for k in nl.affine_range(24):
                    acc[...] += nisa.nc_matmul(h_t[k, :, :], wd_tiles[k, :, 512*d:512*d + 512])
                res = nisa.tensor_copy(acc, dtype=nl.float32)
                nl.store(out[i * m_inner + j, :, nl.ds(d * TILE_N, TILE_N)], value=res)
    return out
