# A naive tutorial-style rmsnorm + matmul (nl.* math, nl.ds slices, the weight loaded inside the
# innermost loop, so w is re-read from HBM once per row tile: 285 MB of reads where 25 MB suffice).
# Written for the hoist_expand tests (tests/unit/agents/builtin_hoist_test.cpp); not in the corpus.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x, w):
    MT, _, K = x.shape
    KT, _, N = w.shape
    NB = 512
    out = nl.ndarray((MT, 128, N), dtype=x.dtype, buffer=nl.shared_hbm)
    for m in nl.affine_range(MT):
        xt = nl.load(x[m])
        sq = nl.multiply(xt, xt)
        ss = nl.sum(sq, axis=1, keepdims=True)
        rs = nl.rsqrt(nl.multiply(ss, 1.0 / K))
        xn = nl.multiply(xt, rs)
        xT = nl.ndarray((KT, nl.par_dim(128), 128), dtype=x.dtype, buffer=nl.sbuf)
        for k in nl.affine_range(KT):
            tp = nisa.nc_transpose(xn[:, nl.ds(k * 128, 128)])
            xT[k] = nl.copy(tp, dtype=x.dtype)
        for n in nl.affine_range(N // NB):
            acc = nl.zeros((128, NB), dtype=nl.float32, buffer=nl.psum)
            for k in nl.affine_range(KT):
                wt = nl.load(w[k, :, nl.ds(n * NB, NB)])
                acc += nisa.nc_matmul(xT[k], wt)
            res = nl.copy(acc, dtype=x.dtype)
            nl.store(out[m, :, nl.ds(n * NB, NB)], value=res)
    return out
