# Bundled-ISA style (the bundled mamba's calls: nl.load, nisa.* returning tiles, `+=` into an SBUF
# accumulator): the state-outer selective scan of state_outer_scan_api.py, the same nest, with one
# ndarray of carries (a block per channel tile) and `0.0 if blk == 0 else carry[ct]`.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(delta, u, a, b, c):
    channels, seq = delta.shape
    _, states = a.shape
    W = 512
    n_ct = channels // 128
    out = nl.ndarray((channels, seq), dtype=delta.dtype, buffer=nl.shared_hbm)
    a_tile = nl.ndarray((n_ct, nl.par_dim(128), states), dtype=nl.float32, buffer=nl.sbuf)
    acc = nl.zeros((n_ct, nl.par_dim(128), seq), dtype=nl.float32, buffer=nl.sbuf)
    carry = nl.ndarray((n_ct, nl.par_dim(128), 1), dtype=nl.float32, buffer=nl.sbuf)
    for ct in nl.affine_range(n_ct):
        a_tile[ct, :, :] = nl.load(a[ct * 128:(ct + 1) * 128, :])
    for s in nl.affine_range(states):
        for blk in nl.sequential_range(seq // W):
            for ct in nl.affine_range(n_ct):
                rows = nl.ds(ct * 128, 128)
                cols = nl.ds(blk * W, W)
                delta_tile = nl.load(delta[rows, cols])
                u_tile = nl.load(u[rows, cols])
                delta_a = nisa.activation(op=nl.exp, data=delta_tile, scale=a_tile[ct, :, s:s + 1])
                delta_u = nisa.tensor_tensor(delta_tile, u_tile, op=nl.multiply)
                b_row = nl.load(b[s:s + 1, cols]).broadcast_to((128, W))
                delta_bu = nisa.tensor_tensor(delta_u, b_row, op=nl.multiply)
                h = nisa.tensor_tensor_scan(delta_a, delta_bu, initial=0.0 if blk == 0 else carry[ct, :, :],
                                            op0=np.multiply, op1=np.add)
                carry[ct, :, :] = h[:, W - 1:W]
                c_row = nl.load(c[s:s + 1, cols]).broadcast_to((128, W))
                acc[ct, :, cols] += nisa.tensor_tensor(h, c_row, op=nl.multiply)
    for ct in nl.affine_range(n_ct):
        nl.store(out[ct * 128:(ct + 1) * 128, :], acc[ct, :, :])
    return out
