# A bf16 two-layer MLP block (x @ w1 -> gelu -> @ w2) as a user ports it: bf16 HBM inputs,
# a 3-D activation flattened with reshape((-1, D)) (a -1 dimension) and the output returned
# through a reshaped view, the activation chosen by name with getattr(nl, ...), PSUM evacuated
# with tile.astype(nl.bfloat16), the hidden activations transposed on chip with nisa.nc_transpose
# for the second matmul, loop bounds from nl.tile_size constants and math.prod of a shape.
import math
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def mlp_block(x, w1, w2, act="gelu_apprx_tanh"):
    B, S, D = x.shape
    H = w1.shape[1]
    rows = math.prod(x.shape) // D
    x2 = x.reshape((-1, D))
    TP = nl.tile_size.pmax
    TH = nl.tile_size.gemm_stationary_fmax
    assert D == TP and H % TH == 0, f"D={D} H={H}"
    act_fn = getattr(nl, act)
    out = nl.ndarray((rows, D), dtype=x.dtype, buffer=nl.shared_hbm)

    w1_t = nl.load(w1)  # (D, H) bf16
    w2_t = [nl.load(w2[h * TH:(h + 1) * TH, :]) for h in range(H // TH)]
    for r in nl.affine_range(rows // TP):
        xt = nl.load_transpose2d(x2[r * TP:(r + 1) * TP, :])  # (D, TP)
        h_ps = nl.matmul(xt, w1_t, transpose_x=True)  # (TP, H) fp32 PSUM
        h_act = act_fn(h_ps).astype(nl.bfloat16)
        o_ps = nl.zeros((TP, D), dtype=nl.float32, buffer=nl.psum)
        for h in nl.affine_range(H // TH):
            hT = nisa.nc_transpose(h_act[:, h * TH:(h + 1) * TH])  # (TH, TP)
            o_ps += nisa.nc_matmul(hT.astype(nl.bfloat16), w2_t[h])
        nl.store(out[r * TP:(r + 1) * TP, :], value=o_ps.astype(nl.bfloat16))
    return out.reshape((B, S, D))
