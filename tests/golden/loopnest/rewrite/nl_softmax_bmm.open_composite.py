# inputs: 2x256x64 2x64x1024
# softmax(lhs @ rhs) written only in nl.* calls, as other authors write it: the softmax is one
# composite call nested in the store. open_composite spells it out as the instructions the
# interpreter runs (negated row max, exp with that bias, row sum, reciprocal, multiply), so the
# moves on those instructions (fold_activation_reduce, engine_assign) become possible.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(lhs, rhs):
    Bn, M, K = lhs.shape
    _, _, N = rhs.shape
    out = nl.ndarray((Bn, M // 128, 128, N), dtype=lhs.dtype, buffer=nl.shared_hbm)
    for b in nl.affine_range(Bn):
        for m in nl.affine_range(M // 128):
            q = nl.load(lhs[b, nl.ds(m * 128, 128), :])
            scores = nl.ndarray((nl.par_dim(128), N), dtype=nl.float32, buffer=nl.sbuf)
            for n in nl.affine_range(N // 512):
                kt = nl.load(rhs[b, :, nl.ds(n * 512, 512)])
                scores[:, nl.ds(n * 512, 512)] = nl.copy(nl.matmul(q, kt))
            neg_max = nisa.tensor_reduce(op=nl.max, data=scores, axis=[1], negate=True, keepdims=True, dtype=nl.float32)
            exps = nisa.activation(op=nl.exp, data=scores, bias=neg_max, dtype=nl.float32)
            row_sum = nl.sum(x=exps, axis=[1], keepdims=True, dtype=nl.float32)
            inv_sum = nl.reciprocal(x=row_sum)
            nl.store(out[b, m], value=nl.multiply(x=exps, y=inv_sum))
    return out
