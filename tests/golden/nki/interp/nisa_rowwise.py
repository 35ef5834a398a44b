# The nki.isa / nki.language instructions of nki-language.md 8.3 / 12.2 / 7.2 that work per
# partition row or move data across partitions (top-k, selects, cumulative, segments, gathers,
# shuffles, random numbers, atomic accumulation), each as a kernel run from host code and
# compared with the numpy expression of its documented semantics. One line per API.
import numpy as np
import nki
import nki.language as nl
import nki.isa as nisa

np.random.seed(3)
A = np.random.permutation(16 * 40).reshape(16, 40).astype(np.float32) / 7 - 30
B = (np.random.rand(16, 40).astype(np.float32) - 0.5) * 4
LO = np.random.randint(0, 10, size=(16, 1)).astype(np.float32)
HI = LO + np.random.randint(5, 30, size=(16, 1)).astype(np.float32)


def check(name, fn, expect, *args, tol=1e-5):
    try:
        @nki.jit
        def k(*ins):
            tiles = [nl.load(t) for t in ins]
            r = fn(*tiles)
            out = nl.ndarray(r.shape, dtype=r.dtype, buffer=nl.shared_hbm)
            nl.store(out, r)
            return out
        got = k(*args)
        e = np.asarray(expect)
        ok = got.shape == e.shape and np.allclose(got.astype(np.float64), e.astype(np.float64), rtol=tol, atol=tol)
        print(name, "ok" if ok else f"MISMATCH {got.shape} {e.shape} {got.dtype} {e.dtype}\n{got}\n{e}")
    except Exception as ex:
        print(name, "ERROR", ex)


top8 = -np.sort(-A, axis=1)[:, :8]
check("max8", lambda a: nisa.max8(src=a), top8, A)
def max8_dst(a):
    dst = nl.ndarray((16, 8), dtype=nl.float32, buffer=nl.sbuf)
    nisa.max8(dst=dst, src=a)
    return dst
check("max8_dst", max8_dst, top8, A)
check("nc_find_index8", lambda a: nisa.nc_find_index8(data=a, vals=nisa.max8(src=a)), np.argsort(-A, axis=1)[:, :8], A)
def topk16(a):
    # the top-k idiom: max8, replace the found values by -inf, max8 again
    m1 = nisa.max8(src=a)
    rest = nisa.nc_match_replace8(data=a, vals=m1, imm=-3.0e38)
    m2 = nisa.max8(src=rest)
    out = nl.ndarray((16, 16), dtype=nl.float32)
    out[:, 0:8] = nl.copy(m1)
    out[:, 8:16] = nl.copy(m2)
    return out
check("nc_match_replace8_topk", topk16, -np.sort(-A, axis=1)[:, :16], A)
def replace_idx(a):
    idx = nl.ndarray((16, 8), dtype=nl.uint32)
    nisa.nc_match_replace8(data=a, vals=nisa.max8(src=a), imm=0.0, dst_idx=idx)
    return idx
check("nc_match_replace8_idx", replace_idx, np.argsort(-A, axis=1)[:, :8], A)
def dup_replace(a):
    # two equal maxima: each replaces its own occurrence
    twice = nl.ndarray((16, 8), dtype=nl.float32)
    twice[...] = nl.copy(nisa.max8(src=a))
    twice[:, 1:2] = nl.copy(twice[:, 0:1])
    return nisa.nc_match_replace8(data=nl.add(a, 0.0), vals=twice, imm=-1.0)
def dup_expect(a):
    r = a.copy()
    top = np.argsort(-a, axis=1)[:, :8]
    for p in range(16):
        for k in [0, 2, 3, 4, 5, 6, 7]:
            r[p, top[p, k]] = -1.0
    return r
check("nc_match_replace8_repeat", dup_replace, dup_expect(A), A)
pred = (B > 0).astype(np.float32)
check("select_reduce", lambda a, p: nisa.select_reduce(predicate=p, on_true=a, on_false=-5.0), np.where(pred > 0, A, -5.0), A, pred)
def select_red(a, p, b):
    mx = nl.ndarray((16, 1), dtype=nl.float32)
    out = nl.ndarray((16, 40), dtype=nl.float32)
    nisa.select_reduce(dst=out, predicate=p, on_true=a, on_false=b, reduce_res=mx, reduce_op=nl.maximum)
    return mx
check("select_reduce_max", select_red, np.where(pred > 0, A, B).max(1, keepdims=True), A, pred, B)
cols = np.arange(40)[None, :] + 2
keep = (cols >= LO) & (cols < HI)
check("range_select", lambda a, lo, hi: nisa.range_select(on_true_tile=a, comp_op0=nl.greater_equal, comp_op1=nl.less,
                                                          bound0=lo, bound1=hi, range_start=2, on_false_value=-7.0),
      np.where(keep, A, -7.0), A, LO, HI)
def range_red(a, lo, hi):
    mx = nl.ndarray((16, 1), dtype=nl.float32)
    nisa.range_select(on_true_tile=a, comp_op0=nl.greater_equal, comp_op1=nl.less, bound0=lo, bound1=hi,
                      range_start=2, reduce_res=mx, reduce_op=nl.maximum)
    return mx
check("range_select_max", range_red, np.where(keep, A, np.finfo(np.float32).min).max(1, keepdims=True), A, LO, HI)
check("tensor_scalar_cumulative", lambda b: nisa.tensor_scalar_cumulative(b, nl.multiply, nl.add, 2.0),
      np.cumsum(B * 2, axis=1), B, tol=1e-4)
check("tensor_scalar_cumulative_max", lambda b: nisa.tensor_scalar_cumulative(src=b, op0=nl.add, op1=nl.maximum, imm0=1.0, imm1=0.5),
      np.maximum.accumulate(np.concatenate([np.full((16, 1), 0.5, np.float32), B + 1], axis=1), axis=1)[:, 1:], B)
def cum_chain(b):
    first = nisa.tensor_scalar_cumulative(b[:, 0:20], nl.multiply, nl.add, 1.0)
    return nisa.tensor_scalar_cumulative(b[:, 20:40], nl.multiply, nl.add, 1.0, reduce_cmd=nisa.reduce_cmd.reduce)
check("tensor_scalar_cumulative_carry", cum_chain, np.cumsum(B, axis=1)[:, 20:], B, tol=1e-4)
SEG = np.array([[1, 1, 1, 2, 2, 5, 5, 5, 5, 3]], dtype=np.float32)
check("sequence_bounds", lambda s: nisa.sequence_bounds(segment_ids=s),
      np.array([[[0, 0, 0, 3, 3, 5, 5, 5, 5, 9], [3, 3, 3, 5, 5, 9, 9, 9, 9, 10]]]), SEG)
SRC = np.arange(32 * 4, dtype=np.float32).reshape(32, 4)
IDX = np.random.randint(0, 64, size=(32, 3)).astype(np.uint16)
core_buf = SRC.reshape(2, 64)
check("local_gather", lambda s, i: nisa.local_gather(s, i),
      np.stack([core_buf[p // 16][IDX[p]] for p in range(32)]), SRC, IDX)
IDX2 = np.random.randint(0, 32, size=(32, 2)).astype(np.uint16)
check("local_gather_blocks", lambda s, i: nisa.local_gather(s, i, num_elem_per_idx=2),
      np.stack([np.concatenate([core_buf[p // 16][2 * j:2 * j + 2] for j in IDX2[p]]) for p in range(32)]), SRC, IDX2)
SH = [(i + 5) % 32 for i in range(32)]
SH[3] = 255
def shuffle(s):
    dst = nl.zeros((32, 4), dtype=nl.float32)
    nisa.nc_stream_shuffle(src=s, dst=dst, shuffle_mask=SH)
    return dst
exp_sh = np.stack([np.zeros(4, np.float32) if SH[p] == 255 else SRC[SH[p]] for p in range(32)])
check("nc_stream_shuffle", shuffle, exp_sh, SRC)
check("abs_max", lambda a, b: nl.abs_max(a, b), np.where(np.abs(B) > np.abs(A), B, A), A, B)
check("abs_min", lambda a, b: nl.abs_min(a, 1.0), np.where(np.abs(A) > 1.0, 1.0, A), A, B)
check("dropout_rate0", lambda b: nl.dropout(b, 0.0), B, B)
check("dropout_rate1", lambda b: nisa.dropout(b, 1.0), np.zeros_like(B), B)
def rand_range(b):
    nl.random_seed(7)
    r = nl.rand((16, 40))
    lo = nl.min(r, axis=1, keepdims=True)
    hi = nl.max(r, axis=1, keepdims=True)
    return nl.add(nl.greater_equal(lo, 0.0, dtype=nl.float32), nl.less(hi, 1.0, dtype=nl.float32))
check("rand_in_unit_interval", rand_range, np.full((16, 1), 2.0), B)
def rand_seeded(b):
    nl.random_seed(11)
    x = nl.rand((16, 40))
    nl.random_seed(11)
    y = nl.rand((16, 40))
    return nl.subtract(x, y)
check("random_seed_repeats", rand_seeded, np.zeros((16, 40)), B)


@nki.jit
def rmw(x, upd):
    nl.atomic_rmw(x[0:16, :], value=nl.load(upd), op=np.add)
    nl.atomic_rmw(x[0:16, :], value=nl.load(upd), op=np.add)


X = np.ones((16, 40), dtype=np.float32)
rmw(X, B)
print("atomic_rmw", "ok" if np.allclose(X, 1 + 2 * B, atol=1e-5) else "MISMATCH")
print("done")
