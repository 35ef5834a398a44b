# Legacy API (nl.load / nl.store): out = sum over t of lhsT[:, t, :].T @ rhs[:, t, :] (K = KT x 128
# contraction rows in KT partition tiles), in 512-column blocks and a ragged last block under `if
# rem > 0:` (decided while tracing: true at N = 1280), whose first column `c0` is bound under the
# guard. The tail's rhs tiles are re-loaded for every 128-row tile m though they do not depend on
# it: hoist_expand loads them once before `for m`, printed under `if rem > 0:` with `c0` bound there
# (tests/unit/loopnest/decided_guard_test.cpp).
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(lhsT, rhs):
    _, KT, M = lhsT.shape
    _, _, N = rhs.shape
    NB = 512
    NT = N // NB
    rem = N - NT * NB
    out = nl.ndarray((M, N), dtype=lhsT.dtype, buffer=nl.shared_hbm)
    if rem > 0:
        c0 = NT * NB
        rt_tail = nl.ndarray(shape=(KT, nl.par_dim(128), 256), dtype=nl.float32, buffer=nl.sbuf)
        for t in nl.affine_range(KT):
            rt_tail[t, :, :] = nl.load(rhs[:, t, c0:N])
    for m in nl.affine_range(M // 128):
        lt = nl.load(lhsT[:, :, nl.ds(m * 128, 128)])
        for n in nl.affine_range(NT):
            ps = nl.zeros((128, NB), dtype=nl.float32, buffer=nl.psum)
            for t in nl.affine_range(KT):
                rt = nl.load(rhs[:, t, nl.ds(n * NB, NB)])
                ps += nisa.nc_matmul(lt[:, t, :], rt)
            res = nl.copy(ps, dtype=lhsT.dtype)
            nl.store(out[nl.ds(m * 128, 128), nl.ds(n * NB, NB)], value=res)
        if rem > 0:
            c0 = NT * NB
            ps_tail = nl.zeros((128, rem), dtype=nl.float32, buffer=nl.psum)
            for t in nl.affine_range(KT):
                ps_tail += nisa.nc_matmul(lt[:, t, :], rt_tail[t, :, :])
            nl.store(out[nl.ds(m * 128, 128), c0:N], value=nl.copy(ps_tail, dtype=lhsT.dtype))
    return out
