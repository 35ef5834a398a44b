# Row softmax of a (200, 1024) input whose row count is not a multiple of 128: the last row tile
# is masked with `mask=` on every load, instruction and store (legacy arange indexing), the row
# max and row sum are reduced over 512-column chunks with nl.loop_reduce, and the exponent uses
# the Scalar Engine's bias input with the negated max.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x):
    M, N = x.shape
    P, F = nl.tile_size.pmax, 512
    out = nl.ndarray((M, N), dtype=x.dtype, buffer=nl.shared_hbm)
    i_p = nl.arange(P)[:, None]
    i_f = nl.arange(F)[None, :]
    i_one = nl.arange(1)[None, :]
    for r in nl.affine_range((M + P - 1) // P):
        rows = r * P + i_p
        valid = rows < M
        row_max = nl.ndarray((P, 1), dtype=nl.float32)
        row_sum = nl.ndarray((P, 1), dtype=nl.float32)
        for c in nl.affine_range(N // F):
            t = nl.load(x[rows, c * F + i_f], mask=valid)
            m = nisa.tensor_reduce(np.max, t, axis=[1], keepdims=True, mask=valid)
            row_max[i_p, i_one] = nl.loop_reduce(m, op=np.max, loop_indices=[c], mask=valid)
        neg_max = nl.multiply(row_max, -1.0, mask=valid)
        exps = nl.ndarray((N // F, nl.par_dim(P), F), dtype=nl.float32)
        for c in nl.affine_range(N // F):
            t = nl.load(x[rows, c * F + i_f], mask=valid)
            exps[c, i_p, i_f] = nisa.activation(op=nl.exp, data=t, bias=neg_max, scale=1.0, mask=valid)
            s = nl.sum(exps[c, i_p, i_f], axis=[1], keepdims=True, mask=valid)
            row_sum[i_p, i_one] = nl.loop_reduce(s, op=np.add, loop_indices=[c], mask=valid)
        inv = nisa.reciprocal(row_sum, mask=valid)
        for c in nl.affine_range(N // F):
            y = nl.multiply(exps[c, i_p, i_f], inv, mask=valid)
            nl.store(out[rows, c * F + i_f], value=y, mask=valid)
    return out
