# Legacy API (nl.load / nl.store): out = xT.T @ w, xT (K, M) with K <= 128, w (K, N). The weight's
# column blocks are re-loaded for every 128-row tile m though they do not depend on it: hoist_expand
# loads them once before `for m`. The guarded_cols_* kernels are this nest under compile-time `if`s
# (tests in tests/unit/loopnest/decided_guard_test.cpp): each must offer the sites this one does.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(xT, w):
    K, M = xT.shape
    _, N = w.shape
    NB = 512
    NT = N // NB
    rem = N % NB
    out = nl.ndarray((M, N), dtype=xT.dtype, buffer=nl.shared_hbm)
    for m in nl.affine_range(M // 128):
        lhsT = nl.load(xT[:, nl.ds(m * 128, 128)])
        for n in nl.affine_range(NT):
            wt = nl.load(w[:, nl.ds(n * NB, NB)])
            ps = nisa.nc_matmul(lhsT, wt)
            res = nl.copy(ps, dtype=xT.dtype)
            nl.store(out[nl.ds(m * 128, 128), nl.ds(n * NB, NB)], value=res)
    return out
