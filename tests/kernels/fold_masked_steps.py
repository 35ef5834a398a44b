# x (192, 512), legacy API with index grids; the ragged last row tile (64 rows) guarded by a mask.
# Each chain's first step is masked, and the folds (fold_scalar_ops, fold_scale,
# fold_scalar_tensor_tensor, fold_silu) keep the reader's mask on the folded instruction. The last
# block's reader is unmasked: it computes rows the masked step never wrote, whose values are
# undefined in both kernels and stored by neither (the stores keep the mask).
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x):
    M, N = x.shape
    out = nl.ndarray((6 * M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    i_p = nl.arange(128)[:, None]
    i_f = nl.arange(512)[None, :]
    for r in nl.affine_range((M + 127) // 128):
        ok = r * 128 + i_p < M
        t = nl.load(x[r * 128 + i_p, i_f], mask=ok)
        a = nl.add(nl.multiply(t, 2.0, mask=ok), 1.0, mask=ok)
        nl.store(out[r * 128 + i_p, i_f], value=a, mask=ok)
        b = nisa.activation(op=nl.exp, data=nl.multiply(t, -0.5, mask=ok), mask=ok)
        nl.store(out[M + r * 128 + i_p, i_f], value=b, mask=ok)
        c = nl.subtract(t, nl.multiply(t, 3.0, mask=ok), mask=ok)
        nl.store(out[2 * M + r * 128 + i_p, i_f], value=c, mask=ok)
        inv = nl.reciprocal(nl.add(t, 2.0, mask=ok), mask=ok)
        d = nl.multiply(t, inv, mask=ok)
        nl.store(out[3 * M + r * 128 + i_p, i_f], value=d, mask=ok)
        en = nisa.activation(op=nl.exp, data=t, scale=-1.0, mask=ok)
        den = nl.add(en, 1.0, mask=ok)
        sig = nl.reciprocal(den, mask=ok)
        nl.store(out[4 * M + r * 128 + i_p, i_f], value=sig, mask=ok)
        # An unmasked reader of a masked step.
        u = nl.exp(nl.multiply(t, 0.25, mask=ok))
        w = nl.multiply(nl.add(u, 1.0), 0.5)
        nl.store(out[5 * M + r * 128 + i_p, i_f], value=w, mask=ok)
    return out
