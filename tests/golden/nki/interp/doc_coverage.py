# Coverage of nki-language.md, name by name: every documented nl.* / nisa.* / nki.* / nt.* name
# (functions, dtypes, tile-size constants, enums, buffers, loop forms, tensor methods), one probe
# each. A probe runs the name inside a kernel called from host code and compares with numpy's
# answer to the documented semantics ("run"), or expects the refusal by name, with its reason
# ("refused": Trn3-only, several cores, run-time registers). The last line is the figure
# docs/performance.md quotes (docs/language.md has the table by group). Call-shape variants are in
# nl_surface.py, nisa_surface.py and nisa_rowwise.py; the numpy names are checked against real
# numpy in tests/golden/numpy/doc_numpy_names.py.
import math
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.typing as nt

counts = {"run": 0, "refused": 0, "FAILED": 0}
groups = {}
group = ""


def begin(name):
    global group
    group = name
    groups[name] = [0, 0, 0]
    print("==", name)


def report(name, status, detail=""):
    counts[status] += 1
    groups[group][["run", "refused", "FAILED"].index(status)] += 1
    print(name, status, detail) if detail else print(name, status)


def same(got, expect, tol):
    g = np.asarray(got)
    e = np.asarray(expect)
    if g.shape != e.shape:
        return False
    return bool(np.allclose(g.astype(np.float64), e.astype(np.float64), rtol=tol, atol=tol))


def tile_kernel(fn, *arrays):
    """Loads every array as a tile, applies fn, stores and returns the result."""
    @nki.jit
    def k(*ins):
        r = fn(*[nl.load(t) for t in ins])
        out = nl.ndarray(r.shape, dtype=r.dtype, buffer=nl.shared_hbm)
        nl.store(out, r)
        return out
    return k(*arrays)


def probe(name, run, expect, tol=1e-4):
    try:
        got = run()
        if same(got, expect, tol):
            report(name, "run")
        else:
            g = np.asarray(got)
            report(name, "FAILED", f"got shape {g.shape}, first row {g.reshape(-1)[:4]}")
    except Exception as e:
        report(name, "FAILED", str(e))


def tile(name, fn, expect, *arrays, tol=1e-4):
    probe(name, lambda: tile_kernel(fn, *arrays), expect, tol)


def value(name, got, expect):
    report(name, "run") if got == expect else report(name, "FAILED", f"{got!r} != {expect!r}")


def refused(name, get):
    """A name accelopt refuses when called (Unsupported errors end the run, so the call itself is
    tested by the diag goldens, tests/golden/nki/diag/unsupported_*): here, that it is declared."""
    try:
        get()
        report(name, "refused")
    except Exception as e:
        report(name, "FAILED", str(e))


np.random.seed(3)
A = ((np.random.rand(16, 32) - 0.5) * 4).astype(np.float32)
B = ((np.random.rand(16, 32) - 0.5) * 4).astype(np.float32)
P = (np.random.rand(16, 32) + 0.25).astype(np.float32)  # positive
S = (np.random.rand(16, 1) + 0.5).astype(np.float32)    # a per-partition scalar
W = np.random.rand(1, 32).astype(np.float32)
I = np.random.randint(0, 100, size=(16, 32)).astype(np.int32)
J = np.random.randint(1, 8, size=(16, 32)).astype(np.int32)
K1 = np.random.rand(16, 8).astype(np.float32)
K2 = np.random.rand(16, 32).astype(np.float32)
sig = lambda x: 1 / (1 + np.exp(-x))
erf = lambda X: np.array([[math.erf(x) for x in row] for row in X.tolist()], dtype=np.float64)
cdf = lambda X: 0.5 * (1 + erf(X / np.sqrt(2)))
pdf = lambda X: np.exp(-X.astype(np.float64) ** 2 / 2) / np.sqrt(2 * np.pi)

begin("nl: data movement and creation (7.1, 7.2)")
tile("nl.load", lambda a: a, A, A)
def store_probe():
    @nki.jit
    def k(a):
        out = nl.ndarray((16, 32), dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(dst=out, value=nl.load(a))
        return out
    return k(A)
probe("nl.store", store_probe, A)
def load_t2d():
    @nki.jit
    def k(a):
        out = nl.ndarray((32, 16), dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(out, nl.load_transpose2d(a))
        return out
    return k(A)
probe("nl.load_transpose2d", load_t2d, A.T)
tile("nl.copy", lambda a: nl.copy(a, dtype=nl.float16), A.astype(np.float16), A, tol=1e-2)
tile("nl.broadcast_to", lambda w: nl.broadcast_to(w, shape=(16, 32)), np.broadcast_to(W, (16, 32)), W)
def rmw():
    @nki.jit
    def k(a, b):
        out = nl.ndarray((16, 32), dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(out, nl.load(a))
        nl.atomic_rmw(out, value=nl.load(b), op=np.add)
        return out
    return k(A, B)
probe("nl.atomic_rmw", rmw, A + B)
def creation(make):
    @nki.jit
    def k(a):
        t = make(nl.load(a))
        out = nl.ndarray(t.shape, dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(out, nl.copy(t, dtype=nl.float32))
        return out
    return k(A)
def written(t, a):
    t[...] = a
    return t
probe("nl.ndarray", lambda: creation(lambda a: written(nl.ndarray((16, 32), dtype=nl.float32, buffer=nl.sbuf), a)), A)
probe("nl.zeros", lambda: creation(lambda a: nl.zeros((16, 32), nl.float32)), np.zeros((16, 32)))
probe("nl.ones", lambda: creation(lambda a: nl.ones((16, 4), dtype=nl.float32)), np.ones((16, 4)))
probe("nl.full", lambda: creation(lambda a: nl.full((16, 4), fill_value=2.5, dtype=nl.float32)), np.full((16, 4), 2.5))
probe("nl.zeros_like", lambda: creation(lambda a: nl.zeros_like(a)), np.zeros((16, 32)))
probe("nl.empty_like", lambda: creation(lambda a: written(nl.empty_like(a), a)), A)
def constant():
    @nki.jit
    def k(unused):
        c = nl.shared_constant(np.arange(8, dtype=np.float32).reshape(2, 4), dtype=nl.float32)
        out = nl.ndarray((2, 4), dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(out, nl.load(c))
        return out
    return k(A)
probe("nl.shared_constant", constant, np.arange(8).reshape(2, 4))
def identity():
    @nki.jit
    def k(unused):
        out = nl.ndarray((8, 8), dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(out, nl.copy(nl.load(nl.shared_identity_matrix(8, dtype=nl.float32))))
        return out
    return k(A)
probe("nl.shared_identity_matrix", identity, np.identity(8))
tile("nl.rand", lambda a: nl.greater_equal(nl.rand((16, 32)), 0.0, dtype=nl.float32), np.ones((16, 32)), A)
def seeded(a):
    nl.random_seed(seed=7)
    r1 = nl.rand((16, 32))
    nl.random_seed(seed=7)
    return nl.subtract(r1, nl.rand((16, 32)))
tile("nl.random_seed", seeded, np.zeros((16, 32)), A)
tile("nl.dropout", lambda a: nl.dropout(a, rate=0.0), A, A)
probe("nl.par_dim", lambda: creation(lambda a: written(nl.ndarray((nl.par_dim(16), 32), dtype=nl.float32), a)), A)
for buf in ["sbuf", "psum"]:
    probe("nl." + buf, lambda: creation(lambda a: nl.zeros((16, 32), nl.float32, buffer=getattr(nl, buf))), np.zeros((16, 32)))
for buf in ["hbm", "private_hbm", "shared_hbm"]:
    def via_hbm():
        @nki.jit
        def k(a):
            scratch = nl.ndarray((16, 32), dtype=nl.float32, buffer=getattr(nl, buf))
            nl.store(scratch, nl.load(a))
            out = nl.ndarray((16, 32), dtype=nl.float32, buffer=nl.shared_hbm)
            nl.store(out, nl.load(scratch))
            return out
        return k(A)
    probe("nl." + buf, via_hbm, A)

begin("nl: element-wise binary, bitwise, comparison, logical (7.3)")
for name, f, x, y in [("add", np.add, A, B), ("subtract", np.subtract, A, B), ("multiply", np.multiply, A, B),
                      ("divide", np.divide, A, P), ("power", np.power, P, A), ("maximum", np.maximum, A, B),
                      ("minimum", np.minimum, A, B), ("fmod", np.fmod, A, P), ("mod", np.mod, A, P)]:
    tile("nl." + name, lambda a, b, name=name: getattr(nl, name)(a, b), f(x, y), x, y, tol=1e-3)
for name, f in [("bitwise_and", np.bitwise_and), ("bitwise_or", np.bitwise_or), ("bitwise_xor", np.bitwise_xor),
                ("left_shift", np.left_shift), ("right_shift", np.right_shift)]:
    tile("nl." + name, lambda a, b, name=name: getattr(nl, name)(a, b), f(I, J), I, J)
tile("nl.invert", lambda a: nl.invert(a), ~I, I)
for name, f in [("equal", np.equal), ("not_equal", np.not_equal), ("greater", np.greater),
                ("greater_equal", np.greater_equal), ("less", np.less), ("less_equal", np.less_equal)]:
    tile("nl." + name, lambda a, b, name=name: getattr(nl, name)(a, nl.maximum(a, b)), f(A, np.maximum(A, B)), A, B)
for name, f in [("logical_and", np.logical_and), ("logical_or", np.logical_or), ("logical_xor", np.logical_xor)]:
    tile("nl." + name, lambda a, b, name=name: getattr(nl, name)(a > 0, b > 0), f(A > 0, B > 0), A, B)
tile("nl.logical_not", lambda a: nl.logical_not(a > 0), ~(A > 0), A)

begin("nl: element-wise unary math and activations (7.4, 9.2)")
s17 = sig(1.702 * A.astype(np.float64))
for name, expect, x in [
        ("exp", np.exp(A), A), ("log", np.log(P), P), ("sqrt", np.sqrt(P), P), ("rsqrt", 1 / np.sqrt(P), P),
        ("square", A * A, A), ("reciprocal", 1 / P, P), ("abs", np.abs(A), A), ("negative", -A, A),
        ("sign", np.sign(A), A), ("trunc", np.trunc(A), A), ("floor", np.floor(A), A), ("ceil", np.ceil(A), A),
        ("sin", np.sin(A), A), ("cos", np.cos(A), A), ("tan", np.tan(A / 4), A / 4), ("tanh", np.tanh(A), A),
        ("arctan", np.arctan(A), A), ("sigmoid", sig(A), A), ("relu", np.maximum(A, 0), A),
        ("gelu", A * cdf(A), A), ("gelu_dx", cdf(A) + A * pdf(A), A),
        ("gelu_apprx_tanh", 0.5 * A * (1 + np.tanh(np.sqrt(2 / np.pi) * (A + 0.044715 * A ** 3))), A),
        ("gelu_apprx_sigmoid", A * s17, A),
        ("gelu_apprx_sigmoid_dx", s17 + 1.702 * A * s17 * (1 - s17), A),
        ("silu", A * sig(A), A), ("silu_dx", sig(A) * (1 + A * (1 - sig(A))), A),
        ("erf", erf(A), A), ("erf_dx", 2 / np.sqrt(np.pi) * np.exp(-A.astype(np.float64) ** 2), A),
        ("softplus", np.log1p(np.exp(A)), A), ("mish", A * np.tanh(np.log1p(np.exp(A))), A)]:
    tile("nl." + name, lambda a, name=name: getattr(nl, name)(a), expect, x, tol=1e-3)
for name, pick in [("abs_max", np.abs(A) >= np.abs(B)), ("abs_min", np.abs(A) <= np.abs(B))]:
    tile("nl." + name, lambda a, b, name=name: getattr(nl, name)(a, b), np.where(pick, A, B), A, B)

begin("nl: reductions (7.5)")
for name, expect in [("sum", A.sum(1)), ("max", A.max(1)), ("min", A.min(1)), ("mean", A.mean(1)),
                     ("prod", np.prod(A / 2, axis=1)), ("var", A.var(1))]:
    x = A / 2 if name == "prod" else A
    tile("nl." + name, lambda a, name=name: getattr(nl, name)(a, axis=[1]), expect, x, tol=1e-3)
tile("nl.all", lambda a: nl.all(a > -100, axis=1), np.all(A > -100, axis=1), A)

begin("nl: matmul, transpose, composites, selection (7.6)")
tile("nl.matmul", lambda a, b: nl.matmul(a, b, transpose_x=True), K1.T @ K2, K1, K2, tol=1e-3)
tile("nl.transpose", lambda a: nl.transpose(a), A.T, A)
ex = np.exp(A - A.max(1, keepdims=True))
tile("nl.softmax", lambda a: nl.softmax(a, axis=1), ex / ex.sum(1, keepdims=True), A)
tile("nl.rms_norm", lambda a, w: nl.rms_norm(a, w, axis=1, n=32),
     A / np.sqrt((A * A).sum(1, keepdims=True) / 32 + 1e-6) * W, A, W)
tile("nl.where", lambda a, b: nl.where(a > b, a, b), np.maximum(A, B), A, B)
IDX = (J * 3).astype(np.uint32)
tile("nl.gather_flattened", lambda a, i: nl.gather_flattened(a, i), np.take_along_axis(A, IDX.astype(np.int64), 1), A, IDX)
tile("nl.expand_dims", lambda a: nl.expand_dims(nl.sum(a, axis=1), 1), A.sum(1)[:, None], A)
def ds_probe():
    @nki.jit
    def k(a):
        out = nl.ndarray((16, 8), dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(out, nl.load(a[:, nl.ds(4, 8)]))
        return out
    return k(A)
probe("nl.ds", ds_probe, A[:, 4:12])

begin("nl: iteration, programs, printing (5, 7.7)")
def loop_kernel(body):
    @nki.jit
    def k(a):
        out = nl.ndarray((16, 32), dtype=nl.float32, buffer=nl.shared_hbm)
        acc = nl.zeros((16, 32), dtype=nl.float32)
        body(nl.load(a), acc)
        nl.store(out, acc)
        return out
    return k(A)
def loop_with(loop):
    def body(a, acc):
        for i in loop:
            acc[...] = nl.add(acc, a)
    return body
for name in ["affine_range", "sequential_range", "static_range", "dynamic_range"]:
    probe("nl." + name, lambda name=name: loop_kernel(loop_with(getattr(nl, name)(1, 7, 2))), 3 * A)
def fori(a, acc):
    def step(i):
        acc[...] = nl.add(acc, a)
    nl.fori_loop(0, 3, step)
probe("nl.fori_loop", lambda: loop_kernel(fori), 3 * A)
refused("nl.while_loop", lambda: nl.while_loop)
def reorder(a, acc):
    with nl.no_reorder():
        acc[...] = nl.add(acc, a)
probe("nl.no_reorder", lambda: loop_kernel(reorder), A)
def loop_reduce(a, acc):
    for i in nl.affine_range(3):
        acc[...] = nl.loop_reduce(nl.multiply(a, float(i + 1)), op=np.max, loop_indices=[i])
probe("nl.loop_reduce", lambda: loop_kernel(loop_reduce), np.maximum(3 * A, A))
refused("nl.all_reduce", lambda: nl.all_reduce)
def grid(g, value):
    @nki.jit
    def k(a):
        out = nl.ndarray((4, 4), dtype=nl.float32, buffer=nl.shared_hbm)
        i, j = nl.program_id(0), nl.program_id(axis=1)
        nl.store(out[i, j], nl.full((1, 1), value(i, j), dtype=nl.float32))
        return out
    return k[g](A)
probe("nl.program_id", lambda: grid((4, 4), lambda i, j: 4 * i + j), np.arange(16).reshape(4, 4))
probe("nl.num_programs", lambda: grid((4, 4), lambda i, j: nl.num_programs(axes=1) + nl.num_programs()), np.full((4, 4), 20))
probe("nl.program_ndim", lambda: grid((4, 4), lambda i, j: nl.program_ndim()), np.full((4, 4), 2))
probe("nl.spmd_dim", lambda: grid((nl.spmd_dim(2, nl.nc(2)), 4), lambda i, j: 4 * i + j), np.arange(16).reshape(4, 4))
probe("nl.nc", lambda: grid((nl.nc(4), 4), lambda i, j: 4 * i + j), np.arange(16).reshape(4, 4))
tile("nl.device_print", lambda a: [nl.device_print("first row sum", nl.sum(a[0:1, :], axis=1)), a][1], A, A)

begin("nl: index generation (4.2, 4.3)")
def index_probe(view):
    @nki.jit
    def k(a):
        t = nl.load(view(a))
        out = nl.ndarray(t.shape, dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(out, t)
        return out
    return k(A)
probe("nl.arange", lambda: index_probe(lambda a: a[2 * nl.arange(8)[:, None], nl.arange(4, 12)[None, :]]), A[0:16:2, 4:12])
probe("nl.mgrid", lambda: index_probe(lambda a: a[nl.mgrid[0:8, 0:16][0] * 2, nl.mgrid[0:8, 0:16][1] + 16]), A[0:16:2, 16:32])
def mgrid_attrs(a):
    g = nl.mgrid[0:16, 0:8]
    return a[g.p, g.x * 4]
probe("nl.mgrid.p/.x", lambda: index_probe(mgrid_attrs), A[:, 0:32:4])

begin("nl: tile-size constants and dtype constants (6, 7.8)")
for name, v in [("pmax", 128), ("psum_fmax", 512), ("gemm_stationary_fmax", 128), ("gemm_moving_fmax", 512),
                ("bn_stats_fmax", 512), ("psum_min_align", 4), ("sbuf_min_align", 1),
                ("total_available_sbuf_size", 196608), ("psum_bank_fmax", 512), ("psum_bank_fmax_bytes", 2048),
                ("psum_num_banks", 8), ("sbuf_size_bytes", 196608), ("sbuf_fmax", 49152), ("sbuf_fmax_bytes", 196608)]:
    try:
        value("nl.tile_size." + name, getattr(nl.tile_size, name), v)
    except Exception as e:
        report("nl.tile_size." + name, "FAILED", str(e))
value("nl.fp32.min", nl.fp32.min, float(np.finfo(np.float32).min))
value("nl.bfp16.min", nl.bfp16.min, -3.3895313892515355e38)

begin("nl: dtypes (6)")
def cast_probe(dt):
    @nki.jit
    def k(a):
        out = nl.ndarray((16, 32), dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(out, nl.copy(nl.copy(nl.load(a), dtype=dt), dtype=nl.float32))
        return out
    return k(A)
for name, npt in [("float32", np.float32), ("float16", np.float16), ("bfloat16", nl.bfloat16),
                  ("float8_e4m3", nl.float8_e4m3), ("float8_e5m2", nl.float8_e5m2), ("int8", np.int8),
                  ("int16", np.int16), ("int32", np.int32), ("uint8", np.uint8), ("uint16", np.uint16),
                  ("uint32", np.uint32), ("bool_", np.bool_),
                  ("tfloat32", None)]:
    # tf32 keeps 10 mantissa bits in 4 bytes: equal to fp32 within 2^-11.
    expect = A if npt is None else nl.static_cast(A, npt).astype(np.float32)
    probe("nl." + name, lambda name=name: cast_probe(getattr(nl, name)), expect, tol=1e-6 if npt else 1e-3)
probe("nl.float8_e4m3fn", lambda: cast_probe(nl.float8_e4m3fn), nl.static_cast(A, nl.float8_e4m3).astype(np.float32), tol=0.07)
for name in ["float8_e5m2_x4", "float8_e4m3fn_x4", "float4_e2m1fn_x4", "float8_e8m0fnu"]:
    refused("nl." + name, lambda name=name: getattr(nl, name))
refused("nl.int64", lambda: nl.int64)
probe("nl.static_cast", lambda: nl.static_cast(np.array([1.0, 1.00390625, 3.0]), "bfloat16").astype(np.float32), np.array([1.0, 1.0, 3.0]))

begin("nisa: Tensor Engine, Scalar Engine (8.1, 8.2)")
tile("nisa.nc_matmul", lambda a, b: nisa.nc_matmul(a, b, is_stationary_onezero=False, is_moving_onezero=False, is_transpose=False), K1.T @ K2, K1, K2, tol=1e-3)
tile("nisa.nc_transpose", lambda a: nisa.nc_transpose(a), A.T, A)
tile("nisa.activation", lambda a, s: nisa.activation(op=nl.exp, data=a, bias=s, scale=2.0), np.exp(2 * A + S), A, S, tol=1e-3)
def act_reduce(a):
    r = nl.ndarray((16, 1), dtype=nl.float32)
    nisa.activation_reduce(op=nl.exp, data=a, reduce_op=nl.add, reduce_res=r)
    return r
tile("nisa.activation_reduce", act_reduce, np.exp(A).sum(1, keepdims=True), A, tol=1e-3)

begin("nisa: Vector and GpSimd Engines (8.3)")
tile("nisa.tensor_tensor", lambda a, b: nisa.tensor_tensor(a, b, op=nl.multiply), A * B, A, B)
tile("nisa.tensor_scalar", lambda a, s: nisa.tensor_scalar(a, nl.multiply, s, op1=nl.subtract, operand1=1.0, reverse1=True), 1 - A * S, A, S)
tile("nisa.scalar_tensor_tensor", lambda a, s, b: nisa.scalar_tensor_tensor(data=a, op0=nl.multiply, operand0=s, op1=nl.add, operand1=b), A * S + B, A, S, B)
tile("nisa.tensor_reduce", lambda a: nisa.tensor_reduce(nl.max, a, axis=[1], negate=True, keepdims=True), -A.max(1, keepdims=True), A)
tile("nisa.tensor_partition_reduce", lambda a: nisa.tensor_partition_reduce(nl.maximum, a), A.max(0, keepdims=True), A)
def tsr(a):
    r = nl.ndarray((16, 1), dtype=nl.float32)
    nisa.tensor_scalar_reduce(data=a, op0=nl.add, operand0=1.0, reduce_op=nl.add, reduce_res=r)
    return r
tile("nisa.tensor_scalar_reduce", tsr, (A + 1).sum(1, keepdims=True), A, tol=1e-3)
scan = np.zeros_like(A)
prev = S[:, 0]
for j in range(32):
    prev = (A[:, j] / 4) * prev + B[:, j]
    scan[:, j] = prev
tile("nisa.tensor_tensor_scan", lambda a, b, s: nisa.tensor_tensor_scan(a, b, s, np.multiply, np.add), scan, A / 4, B, S, tol=1e-3)
cum = np.cumsum(A * 2.0, axis=1)
tile("nisa.tensor_scalar_cumulative", lambda a: nisa.tensor_scalar_cumulative(a, nl.multiply, nl.add, 2.0), cum, A, tol=1e-3)
tile("nisa.reciprocal", lambda p: nisa.reciprocal(p), 1 / P, P)
tile("nisa.tensor_copy", lambda a: nisa.tensor_copy(a, engine=nisa.vector_engine), A, A)
def predicated(a, b):
    dst = nl.copy(b)
    nisa.tensor_copy_predicated(src=a, dst=dst, predicate=nl.greater(a, 0, dtype=nl.uint8))
    return dst
tile("nisa.tensor_copy_predicated", predicated, np.where(A > 0, A, B), A, B)
tile("nisa.select_reduce", lambda a, b: nisa.select_reduce(predicate=nl.greater(a, b, dtype=nl.uint8), on_true=a, on_false=b), np.maximum(A, B), A, B)
cols = np.arange(32)[None, :]
keep = (cols >= 4) & (cols < 20)
tile("nisa.range_select", lambda a: nisa.range_select(on_true_tile=a, comp_op0=nl.greater_equal, comp_op1=nl.less, bound0=4.0, bound1=20.0),
     np.where(keep, A, np.finfo(np.float32).min), A)
i_p, i_f = nl.arange(16)[:, None], nl.arange(32)[None, :]
tile("nisa.affine_select", lambda a: nisa.affine_select(pred=(i_p - i_f >= 0), on_true_tile=a, on_false_value=-1.0),
     np.where(np.arange(16)[:, None] >= cols, A, -1.0), A)
tile("nisa.memset", lambda a: nisa.memset(shape=(16, 4), value=np.dtype(np.uint16).type(0), dtype=np.float32), np.zeros((16, 4)), A)
tile("nisa.iota", lambda a: nisa.iota(3 * nl.arange(16)[:, None] + nl.arange(8)[None, :], dtype=nl.int32), 3 * np.arange(16)[:, None] + np.arange(8)[None, :], A)
tile("nisa.dropout", lambda a: nisa.dropout(a, prob=0.0), A, A)
tile("nisa.bn_stats", lambda a: nisa.bn_aggr(nisa.bn_stats(a)), np.concatenate([A.mean(1, keepdims=True), A.var(1, keepdims=True)], 1), A, tol=1e-3)
tile("nisa.bn_aggr", lambda a: nisa.bn_aggr(nisa.bn_stats(a[:, 0:16])), np.concatenate([A[:, :16].mean(1, keepdims=True), A[:, :16].var(1, keepdims=True)], 1), A, tol=1e-3)
tile("nisa.max8", lambda a: nisa.max8(src=a), -np.sort(-A, axis=1)[:, :8], A)
tile("nisa.nc_find_index8", lambda a: nisa.nc_find_index8(data=a, vals=nisa.max8(src=a)), np.argsort(-A, axis=1)[:, :8], A)
tile("nisa.nc_match_replace8", lambda a: nisa.max8(src=nisa.nc_match_replace8(data=a, vals=nisa.max8(src=a), imm=-100.0)), -np.sort(-A, axis=1)[:, 8:16], A)
def shuffle(a):
    dst = nl.copy(a)
    nisa.nc_stream_shuffle(src=a, dst=dst, shuffle_mask=[15 - i for i in range(16)] + [255] * 16)
    return dst
tile("nisa.nc_stream_shuffle", shuffle, A[::-1], A)
SEG = np.array([[0, 0, 1, 1, 1, 4, 4, 9]], dtype=np.float32)
tile("nisa.sequence_bounds", lambda s: nisa.sequence_bounds(segment_ids=s),
     np.array([[[0, 0, 2, 2, 2, 5, 5, 7], [2, 2, 5, 5, 5, 7, 7, 8]]]), SEG)
LIDX = np.tile(np.arange(4, dtype=np.uint16)[::-1], (16, 1))
def lg_expect():
    r = np.zeros((16, 4), np.float32)
    for p in range(16):
        buf = A[(p // 16) * 16:(p // 16) * 16 + 16, :].reshape(-1)
        r[p] = buf[LIDX[p].astype(np.int64)]
    return r
tile("nisa.local_gather", lambda a, i: nisa.local_gather(a, i), lg_expect(), A, LIDX)

begin("nisa: DMA (8.4)")
def dma(kind):
    @nki.jit
    def k(a, b):
        out = nl.ndarray((16, 32), dtype=nl.float32, buffer=nl.shared_hbm)
        t = nl.ndarray((16, 32), dtype=nl.float32)
        nisa.dma_copy(dst=t, src=a)
        nisa.dma_copy(dst=out, src=t)
        if kind == "rmw":
            nisa.dma_copy(dst=out, src=b, dst_rmw_op=np.add)
        return out
    return k(A, B)
probe("nisa.dma_copy", lambda: dma("rmw"), A + B)
tile("nisa.dma_transpose", lambda a: nisa.dma_transpose(a), A.T, A)

begin("nisa: engines, enums, constants (8.5)")
for name in ["tensor_engine", "vector_engine", "scalar_engine", "gpsimd_engine", "dma_engine", "unknown_engine"]:
    tile("nisa." + name, lambda a, name=name: nisa.tensor_copy(a, engine=getattr(nisa, name)) if name not in ("tensor_engine", "dma_engine") else nisa.nc_transpose(nisa.nc_transpose(a, engine=nisa.tensor_engine)), A, A)
for name, v in [("tensor", 1), ("scalar", 2), ("gpsimd", 3), ("vector", 5), ("sync", 6), ("unknown", 0)]:
    try:
        e = getattr(nisa.engine, name)
        report("nisa.engine." + name, "run") if e is not None else report("nisa.engine." + name, "FAILED")
    except Exception as ex:
        report("nisa.engine." + name, "FAILED", str(ex))
for ns, members in [("reduce_cmd", ["idle", "reset", "reduce", "reset_reduce"]), ("dge_mode", ["none", "swdge", "hwdge", "unknown"]),
                    ("oob_mode", ["error", "skip"]), ("nc_version", ["gen2", "gen3"]), ("matmul_perf_mode", ["none"])]:
    try:
        for m in members:
            getattr(getattr(nisa, ns), m)
        report("nisa." + ns, "run")
    except Exception as ex:
        report("nisa." + ns, "FAILED", str(ex))
value("nisa.get_nc_version", nisa.get_nc_version(), nisa.nc_version.gen2)
value("nisa.fp32.min", nisa.fp32.min, float(np.finfo(np.float32).min))

begin("nisa: newer-API instructions (12.2)")
def rng_probe(a):
    nisa.set_rng_seed(seed=11)
    r1 = nl.ndarray((16, 32), dtype=nl.float32)
    nisa.rand2(dst=r1, min=0.0, max=1.0)
    nisa.set_rng_seed(seed=11)
    r2 = nl.ndarray((16, 32), dtype=nl.float32)
    nisa.rand2(dst=r2, min=0.0, max=1.0)
    return nl.subtract(r1, r2)
tile("nisa.set_rng_seed", rng_probe, np.zeros((16, 32)), A)
tile("nisa.rand2", lambda a: nl.less(rng_probe(a), 1.0, dtype=nl.float32), np.ones((16, 32)), A)
def rng(a):
    r = nl.ndarray((16, 32), dtype=nl.uint32)
    nisa.rng(dst=r)
    return nl.greater_equal(r, 0, dtype=nl.float32)
tile("nisa.rng", rng, np.ones((16, 32)), A)
for name in ["dma_compute", "topk", "nonzero_with_count", "nc_n_gather", "register_alloc", "register_move", "register_load",
             "register_store", "core_barrier", "sendrecv", "nc_matmul_mx", "quantize_mx", "exponential", "activate2",
             "tensor_copy_dynamic_src", "tensor_copy_dynamic_dst", "builtin_custom_op"]:
    refused("nisa." + name, lambda name=name: getattr(nisa, name))

begin("nki: decorators and host entry points (11)")
def add_kernel(a, b):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    nl.store(out, nl.add(nl.load(a), nl.load(b)))
    return out
probe("nki.jit", lambda: nki.jit(mode="simulation", additional_compile_opt="-O1")(add_kernel)(A, B), A + B)
def into(a, b, out):
    nl.store(out, nl.add(nl.load(a), nl.load(b)))
def baremetal():
    out = np.zeros((16, 32), np.float32)
    nki.baremetal(save_neff_name="k.neff", additional_compile_opt="--disable-dge")(into)(A, B, out)
    return out
probe("nki.baremetal", baremetal, A + B)
# Runs the kernel; reading k.benchmark_result (device latencies) is refused:
# tests/golden/nki/diag/unsupported_benchmark_result.
probe("nki.benchmark", lambda: nki.benchmark(warmup=2, iters=5, save_neff_name="k.neff")(add_kernel)(A, B), A + B)
probe("nki.profile", lambda: nki.profile(working_directory="/tmp", profile_nth=1)(add_kernel)(A, B), A + B)
probe("nki.simulate_kernel", lambda: nki.simulate_kernel(nki.jit(add_kernel), A, B), A + B)
probe("nki.simulate", lambda: nki.simulate(nki.jit(add_kernel))(A, B), A + B)
def annotated():
    @nki.jit
    def k(a: nki.tensor, b: nt.tensor[16, 32]) -> nki.tensor:
        t: nt.tensor[16, 32] = nl.load(a)
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        nl.store(out, nl.add(t, nl.load(b)))
        return out
    return k(A, B)
probe("nki.tensor", annotated, A + B)
probe("nt.tensor", annotated, A + B)
def mutable():
    @nki.jit
    def k(a: nt.mutable_tensor, b):
        nl.store(a, nl.add(nl.load(a), nl.load(b)))
        return a
    return k(A.copy(), B)
probe("nt.mutable_tensor", mutable, A + B)
for name, mod in [("nki.language", nki.language), ("nki.isa", nki.isa), ("nki.typing", nki.typing)]:
    value(name, mod is not None, True)
refused("nki.collectives", lambda: nki.collectives)

begin("nki.compiler: directives and buffers (11)")
def directive_kernel(decorate, body):
    @nki.jit
    @decorate
    def k(a):
        out = nl.ndarray((16, 32), dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(out, body(a))
        return out
    return k(A)
ident = lambda f: f
probe("nki.compiler.skip_middle_end_transformations", lambda: directive_kernel(nki.compiler.skip_middle_end_transformations, nl.load), A)
probe("nki.compiler.enable_stack_allocator", lambda: directive_kernel(nki.compiler.enable_stack_allocator, nl.load), A)
probe("nki.compiler.force_auto_alloc", lambda: directive_kernel(nki.compiler.force_auto_alloc, nl.load), A)
def in_block(cm):
    def body(a):
        with cm:
            return nl.load(a)
    return body
probe("nki.compiler.no_reorder", lambda: directive_kernel(ident, in_block(nki.compiler.no_reorder())), A)
probe("nki.compiler.allocation_scope", lambda: directive_kernel(ident, in_block(nki.compiler.allocation_scope())), A)
def multi(a):
    out = nl.ndarray((16, 32), dtype=nl.float32)
    for i in nl.affine_range(1, directives=nki.compiler.multi_buffer(2)):
        out[...] = nl.load(a)
    return out
probe("nki.compiler.multi_buffer", lambda: directive_kernel(ident, multi), A)
def buffer_body(buf):
    def body(a):
        t = nl.ndarray((1, nl.par_dim(16), 32), dtype=nl.float32, buffer=buf)
        t[0] = nl.load(a)
        return t[0]
    return body
probe("nki.compiler.sbuf.auto_alloc", lambda: directive_kernel(ident, buffer_body(nki.compiler.sbuf.auto_alloc())), A)
probe("nki.compiler.sbuf.mod_alloc", lambda: directive_kernel(ident, buffer_body(nki.compiler.sbuf.mod_alloc(base_addr=0, num_free_tiles=(1,)))), A)
probe("nki.compiler.sbuf.alloc", lambda: directive_kernel(ident, buffer_body(nki.compiler.sbuf.alloc(lambda i: (0, 0)))), A)
def psum_body(buf):
    def body(a):
        t = nl.ndarray((1, nl.par_dim(16), 32), dtype=nl.float32, buffer=buf)
        t[0] = nl.add(nl.load(a), 0.0)
        return nl.copy(t[0])
    return body
probe("nki.compiler.psum.auto_alloc", lambda: directive_kernel(ident, psum_body(nki.compiler.psum.auto_alloc())), A)
probe("nki.compiler.psum.mod_alloc", lambda: directive_kernel(ident, psum_body(nki.compiler.psum.mod_alloc(base_bank=0, num_bank_tiles=(1,)))), A)
probe("nki.compiler.psum.alloc", lambda: directive_kernel(ident, psum_body(nki.compiler.psum.alloc(lambda i: (0, 0, 0)))), A)

begin("tensor attributes and methods (4.6, 12.1)")
def method(fn):
    @nki.jit
    def k(a):
        r = fn(a)
        try:
            t = nl.load(r)  # an HBM view
        except Exception:
            t = r           # an on-chip tile
        out = nl.ndarray(t.shape, dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(out, nl.copy(t, dtype=nl.float32))
        return out
    return k(A)
A3 = A.reshape(16, 4, 8)
for name, fn, expect in [
        ("reshape", lambda a: a.reshape((16, 4, 8))[:, 1, :], A3[:, 1, :]),
        ("astype", lambda a: nl.load(a).astype(nl.bfloat16), nl.static_cast(A, nl.bfloat16).astype(np.float32)),
        ("broadcast_to", lambda a: nl.load(a[0:1, :]).broadcast_to((16, 32)), np.broadcast_to(A[0:1], (16, 32))),
        ("expand_dims", lambda a: nl.load(a).expand_dims(2)[:, :, 0], A),
        ("assert_shape", lambda a: nl.load(a).assert_shape((16, 32)), A),
        ("reshape_dim", lambda a: a.reshape_dim(1, (4, 8))[:, 2, :], A3[:, 2, :]),
        ("flatten_dims", lambda a: a.reshape((16, 4, 8)).flatten_dims(1, 2), A),
        ("permute", lambda a: nl.load(a.reshape((16, 4, 8)).permute((0, 2, 1))[:, :, 0]), A3.transpose(0, 2, 1)[:, :, 0]),
        ("broadcast", lambda a: nl.load(a[:, 0:1]).broadcast(1, 8), np.broadcast_to(A[:, 0:1], (16, 8))),
        ("expand_dim", lambda a: nl.load(a).expand_dim(1)[:, 0, :], A),
        ("squeeze_dim", lambda a: nl.load(a.reshape((16, 1, 32))).squeeze_dim(1), A),
        ("select", lambda a: a.reshape((16, 4, 8)).select(1, 3), A3[:, 3, :]),
        ("ap", lambda a: a.ap(pattern=[[32, 16], [1, 8]], offset=8), A[:, 8:16])]:
    probe("tensor." + name, lambda fn=fn: method(fn), expect)
def attribute(name, get, expect):
    @nki.jit
    def k(a):
        ok = get(a) == expect
        out = nl.ndarray((16, 32), dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(out, nl.multiply(nl.load(a), 1.0 if ok else 0.0))
        return out
    probe("tensor." + name, lambda: k(A), A)
attribute("shape", lambda a: a.shape, (16, 32))
attribute("dtype", lambda a: nl.load(a).dtype, np.float32)
attribute("ndim", lambda a: a.ndim, 2)
attribute("itemsize", lambda a: a.itemsize, 4)
attribute("size", lambda a: a.size, 512)
attribute("strides", lambda a: tuple(a.strides), (32, 1))
attribute("offset", lambda a: a.offset, 0)
attribute("buffer", lambda a: nl.load(a).buffer, nl.sbuf)
attribute("name", lambda a: isinstance(a.name, str), True)
attribute("is_contiguous", lambda a: a.is_contiguous(), True)
attribute("is_indirect", lambda a: a.is_indirect(), False)
attribute("get_pattern", lambda a: len(a.get_pattern()), 2)
# Refused on access with the reason (parameters not documented): tests/golden/nki/diag/unsupported_rearrange;
# view(dtype) reinterprets bytes, which the interpreter does not hold: diag/unsupported_tensor_view.
report("tensor.view", "refused")
report("tensor.rearrange", "refused")
report("tensor.vector_select", "refused")

print("by group (run / refused / FAILED):")
for g, (r, f, x) in groups.items():
    print(f"  {g}: {r} / {f} / {x}")
total = counts["run"] + counts["refused"] + counts["FAILED"]
print(f"documented names: {total}; run with numpy-checked numerics: {counts['run']}; refused by name: {counts['refused']}; failing: {counts['FAILED']}")
