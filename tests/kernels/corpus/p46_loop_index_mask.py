# A schedule generator's split loops (session 46, found on an outside author's generated-style
# kernels): the column axis is split into outer and unrolled inner parts whose last inner
# iteration lies past the end (6 windows of 256 cover 1280 columns, the axis has 1200), so every
# access carries the generator's guard: a comparison of the loop indices alone, `&` a comparison
# of the index grid. On the device the loop indices are symbolic and the guard is one predicate;
# run concretely the loop term is a Python bool.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa
from neuronxcc.nki.language import par_dim

SCHED = dict(tile_n=256, unroll=2)


@nki.jit
def gated_exp_kernel(x, w):
    M, N = x.shape
    TN = SCHED["tile_n"]
    U = SCHED["unroll"]
    n_ax1_0 = (N + TN * U - 1) // (TN * U)
    n_win = (N + TN - 1) // TN
    out = nl.ndarray((M, N), dtype=x.dtype, buffer=nl.shared_hbm)
    i_p = nl.arange(128)[:, None]
    i_f = nl.arange(TN)[None, :]
    for ax0 in nl.affine_range(M // 128):
        for ax1_0 in nl.affine_range(n_ax1_0):
            x_shared = nl.ndarray((U, par_dim(128), TN), dtype=x.dtype, buffer=nl.sbuf)
            T_exp = nl.ndarray((U, par_dim(128), TN), dtype=nl.float32, buffer=nl.sbuf)
            for ax1_1 in nl.static_range(U):
                x_shared[ax1_1, i_p, i_f] = nl.load(
                    x[ax0 * 128 + i_p, ax1_0 * (TN * U) + ax1_1 * TN + i_f],
                    mask=(ax1_0 * U + ax1_1 < n_win) & (ax1_0 * (TN * U) + ax1_1 * TN + i_f < N))
                T_exp[ax1_1, i_p, i_f] = nisa.activation(
                    op=nl.exp, data=x_shared[ax1_1, i_p, i_f],
                    mask=(ax1_0 * U + ax1_1 < n_win) & (ax1_0 * (TN * U) + ax1_1 * TN + i_f < N))
                # A guard on the loop indices alone: the window's last full tile.
                T_exp[ax1_1, i_p, i_f] = nisa.tensor_scalar(
                    data=T_exp[ax1_1, i_p, i_f], op0=nl.multiply, operand0=2.0,
                    mask=(ax1_0 * U + ax1_1 < N // TN))
                nl.store(out[ax0 * 128 + i_p, ax1_0 * (TN * U) + ax1_1 * TN + i_f],
                         value=T_exp[ax1_1, i_p, i_f],
                         mask=(ax1_0 * U + ax1_1 < n_win) & (ax1_0 * (TN * U) + ax1_1 * TN + i_f < N) & (ax0 < M))
    return out
