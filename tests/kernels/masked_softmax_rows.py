# Legacy API, index grids, the ragged last row tile guarded by the same mask on every instruction
# (x: (192, 512): two row tiles, the second 64 rows). A row softmax written step by step: the
# negated max, x + (-max) on the Vector Engine, exp on the Scalar Engine, the row sum, the
# normalization. fold_bias makes exp(x + (-max)) one activation with the column as its bias, and
# fold_activation_reduce sums the rows inside the exp: the folded instructions keep the mask.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x):
    M, N = x.shape
    out = nl.ndarray((M, N), dtype=x.dtype, buffer=nl.shared_hbm)
    i_p = nl.arange(128)[:, None]
    i_f = nl.arange(512)[None, :]
    for r in nl.affine_range((M + 127) // 128):
        ok = r * 128 + i_p < M
        xt = nl.load(x[r * 128 + i_p, i_f], mask=ok)
        neg_max = nisa.tensor_reduce(nl.max, xt, axis=[1], keepdims=True, negate=True, mask=ok)
        shifted = nisa.tensor_scalar(xt, nl.add, neg_max, mask=ok)
        e = nisa.activation(op=nl.exp, data=shifted, mask=ok)
        total = nisa.tensor_reduce(nl.add, e, axis=[1], keepdims=True, mask=ok)
        inv = nisa.reciprocal(total, mask=ok)
        y = nisa.tensor_scalar(e, nl.multiply, inv, mask=ok)
        nl.store(out[r * 128 + i_p, i_f], value=y, mask=ok)
    return out
