# A naive tutorial-style transpose_matmul: both operands loaded inside the innermost loop. `a` is
# invariant in n (hoisting it out of n needs KT = 16 tiles, 8 KiB per partition); `b` is invariant
# in m, but hoisting it out of m needs N/TN * KT = 384 tiles (684 KiB per partition): more than an
# SBUF partition, refused. Written for the hoist_expand tests; not in the corpus.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(lhsT, rhs):
    _, KT, M = lhsT.shape
    _, _, N = rhs.shape
    TM = 128
    TN = 456
    out = nl.ndarray((M, N), dtype=lhsT.dtype, buffer=nl.shared_hbm)
    for m in nl.affine_range(M // TM):
        for n in nl.affine_range(N // TN):
            acc = nl.zeros((TM, TN), dtype=nl.float32, buffer=nl.psum)
            for k in nl.affine_range(KT):
                a = nl.load(lhsT[:, k, nl.ds(m * TM, TM)])
                b = nl.load(rhs[:, k, nl.ds(n * TN, TN)])
                acc += nisa.nc_matmul(a, b)
            res = nl.copy(acc, dtype=lhsT.dtype)
            nl.store(out[nl.ds(m * TM, TM), nl.ds(n * TN, TN)], value=res)
    return out
