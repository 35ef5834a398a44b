# Legacy API (nl.load / nl.store): guarded_cols_tail.py with the ragged tail's tiles named as the
# full blocks' (`wt`, `ps`, `res` bound again under `if rem > 0:`). The tail's weight load is the
# same in every row tile, but printed before `for m` its `wt` would be the one the column loop binds
# again before the tail reads it: hoist does not offer it
# (tests/unit/loopnest/hoist_rebound_test.cpp); guarded_cols_tail.py, naming it `w_tail`, is offered
# the hoist.
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
        if rem > 0:
            wt = nl.load(w[:, nl.ds(NT * NB, rem)])
            ps = nisa.nc_matmul(lhsT, wt)
            res = nl.copy(ps, dtype=xT.dtype)
            nl.store(out[nl.ds(m * 128, 128), nl.ds(NT * NB, rem)], value=res)
    return out
