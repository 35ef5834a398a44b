# One AdamW step as a first-time author writes it after the NKI tutorials: nl.* math, index grids
# from nl.arange, the ragged last row tile (10944 = 85 x 128 + 64) under masks on the loads and
# the store, the moment updates in a helper returning two tiles.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


def update_moments(g, m_old, v_old):
    """m' = 0.9 m + 0.1 g, v' = 0.999 v + 0.001 g^2."""
    m_new = nl.add(nl.multiply(m_old, 0.9), nl.multiply(g, 0.1))
    g_sq = nl.multiply(g, g)
    v_new = nl.add(nl.multiply(v_old, 0.999), nl.multiply(g_sq, 0.001))
    return m_new, v_new


@nki.jit
def adamw_kernel(theta, grad, m, v):
    M, N = theta.shape
    TILE_P = nl.tile_size.pmax  # 128
    TILE_F = 512
    out = nl.ndarray((M, N), dtype=theta.dtype, buffer=nl.shared_hbm)
    i_p = nl.arange(TILE_P)[:, None]
    i_f = nl.arange(TILE_F)[None, :]
    for r in nl.affine_range((M + TILE_P - 1) // TILE_P):
        for c in nl.affine_range(N // TILE_F):
            theta_t = nl.load(theta[r * TILE_P + i_p, c * TILE_F + i_f], mask=(r * TILE_P + i_p < M))
            grad_t = nl.load(grad[r * TILE_P + i_p, c * TILE_F + i_f], mask=(r * TILE_P + i_p < M))
            m_t = nl.load(m[r * TILE_P + i_p, c * TILE_F + i_f], mask=(r * TILE_P + i_p < M))
            v_t = nl.load(v[r * TILE_P + i_p, c * TILE_F + i_f], mask=(r * TILE_P + i_p < M))
            m_new, v_new = update_moments(grad_t, m_t, v_t)
            denom = nl.add(nl.sqrt(nisa.tensor_scalar(data=v_new, op0=nl.multiply, operand0=1000.0, engine=nisa.gpsimd_engine)), 1e-8)
            step = nl.multiply(nl.divide(m_new, denom), 0.01)
            res = nl.subtract(nl.multiply(theta_t, 1 - 1e-5), step)
            nl.store(out[r * TILE_P + i_p, c * TILE_F + i_f], value=res, mask=(r * TILE_P + i_p < M))
    return out
