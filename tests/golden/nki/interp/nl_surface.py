# The nki.language / nki.isa surface of nki-language.md sections 7-9, each API run as a one-
# instruction kernel from host code and compared with the numpy expression of its documented
# semantics (numpy itself is checked against real numpy by tests/golden/numpy). One line per API:
# "ok" or what differs.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa
import math

np.random.seed(0)
A = (np.random.rand(16, 32).astype(np.float32) - 0.5) * 4
B = (np.random.rand(16, 32).astype(np.float32) - 0.5) * 4
Bp = np.abs(B) + 0.5
res = []

def check(name, fn, expect, *args, tol=1e-4):
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
        print(name, "ok" if ok else f"MISMATCH {got.shape} {e.shape} {got.dtype} {e.dtype}")
    except Exception as ex:
        print(name, "ERROR", ex)

check("add", lambda a, b: nl.add(a, b), A + B, A, B)
check("sub", lambda a, b: nl.subtract(a, b), A - B, A, B)
check("mul", lambda a, b: nl.multiply(a, b), A * B, A, B)
check("div", lambda a, b: nl.divide(a, b), A / Bp, A, Bp)
check("pow", lambda a, b: nl.power(a, b), np.power(Bp, A), Bp, A, tol=1e-3)
check("max", lambda a, b: nl.maximum(a, b), np.maximum(A, B), A, B)
check("min", lambda a, b: nl.minimum(a, b), np.minimum(A, B), A, B)
check("fmod", lambda a, b: nl.fmod(a, b), np.fmod(A, Bp), A, Bp)
check("mod", lambda a, b: nl.mod(a, b), np.mod(A, Bp), A, Bp)
check("eq", lambda a, b: nl.equal(a, a), np.ones_like(A, dtype=bool), A, B)
check("gt", lambda a, b: nl.greater(a, b), A > B, A, B)
check("ge", lambda a, b: nl.greater_equal(a, b), A >= B, A, B)
check("lt", lambda a, b: nl.less(a, b), A < B, A, B)
check("le", lambda a, b: nl.less_equal(a, b), A <= B, A, B)
check("ne", lambda a, b: nl.not_equal(a, b), A != B, A, B)
check("land", lambda a, b: nl.logical_and(a > 0, b > 0), (A > 0) & (B > 0), A, B)
check("lor", lambda a, b: nl.logical_or(a > 0, b > 0), (A > 0) | (B > 0), A, B)
check("lxor", lambda a, b: nl.logical_xor(a > 0, b > 0), (A > 0) ^ (B > 0), A, B)
check("lnot", lambda a: nl.logical_not(a > 0), ~(A > 0), A)
for f, nf in [("exp", np.exp), ("tanh", np.tanh), ("sin", np.sin), ("cos", np.cos), ("abs", np.abs), ("negative", np.negative), ("sign", np.sign), ("trunc", np.trunc), ("floor", np.floor), ("ceil", np.ceil), ("arctan", np.arctan), ("square", np.square)]:
    check(f, lambda a, f=f: getattr(nl, f)(a), nf(A), A)
check("tan", lambda a: nl.tan(a), np.tan(A / 4), A / 4)
check("log", lambda a: nl.log(a), np.log(Bp), Bp)
check("sqrt", lambda a: nl.sqrt(a), np.sqrt(Bp), Bp)
check("rsqrt", lambda a: nl.rsqrt(a), 1 / np.sqrt(Bp), Bp)
check("reciprocal", lambda a: nl.reciprocal(a), 1 / Bp, Bp)
check("sigmoid", lambda a: nl.sigmoid(a), 1 / (1 + np.exp(-A)), A)
check("relu", lambda a: nl.relu(a), np.maximum(A, 0), A)
check("silu", lambda a: nl.silu(a), A / (1 + np.exp(-A)), A)
check("softplus", lambda a: nl.softplus(a), np.log1p(np.exp(A)), A)
check("mish", lambda a: nl.mish(a), A * np.tanh(np.log1p(np.exp(A))), A)
erf = lambda X: np.array([[math.erf(x) for x in row] for row in X.tolist()], dtype=np.float32)
check("erf", lambda a: nl.erf(a), erf(A).astype(np.float32), A)
check("gelu", lambda a: nl.gelu(a), (0.5 * A * (1 + erf(A / np.sqrt(2)))).astype(np.float32), A)
check("gelu_apprx_tanh", lambda a: nl.gelu_apprx_tanh(a), 0.5 * A * (1 + np.tanh(np.sqrt(2 / np.pi) * (A + 0.044715 * A**3))), A)
# reductions
check("sum1", lambda a: nl.sum(a, axis=1), A.sum(axis=1), A)
check("sum_list", lambda a: nl.sum(a, axis=[1]), A.sum(axis=1), A)
check("sum_keep", lambda a: nl.sum(a, axis=1, keepdims=True), A.sum(axis=1, keepdims=True), A)
check("max_r", lambda a: nl.max(a, axis=1), A.max(axis=1), A)
check("min_r", lambda a: nl.min(a, axis=1), A.min(axis=1), A)
check("mean_r", lambda a: nl.mean(a, axis=1), A.mean(axis=1), A)
check("prod_r", lambda a: nl.prod(a / 2, axis=1), np.prod(A / 2, axis=1), A, tol=1e-3)
check("var_r", lambda a: nl.var(a, axis=1), ((A - A.mean(1, keepdims=True))**2).mean(1), A)
check("all_r", lambda a: nl.all(a > -100, axis=1), np.all(A > -100, axis=1), A)
check("softmax", lambda a: nl.softmax(a, axis=1), np.exp(A - A.max(1, keepdims=True)) / np.exp(A - A.max(1, keepdims=True)).sum(1, keepdims=True), A)
check("where", lambda a, b: nl.where(a > 0, a, b), np.where(A > 0, A, B), A, B)
check("where_s", lambda a: nl.where(a > 0, a, 0.0), np.where(A > 0, A, 0), A)
W = np.random.rand(1, 32).astype(np.float32)
check("rms_norm", lambda a, w: nl.rms_norm(a, w, axis=1, n=32), A / np.sqrt((A * A).sum(1, keepdims=True) / 32 + 1e-6) * W, A, W)
check("transpose", lambda a: nl.transpose(a), A.T, A)
check("matmul", lambda a, b: nl.matmul(a, nl.transpose(b)), A @ B.T, A, B, tol=1e-3)
check("matmul_tx", lambda a, b: nl.matmul(a, b, transpose_x=True), A.T @ B, A, B, tol=1e-3)
check("copy_dtype", lambda a: nl.copy(a, dtype=nl.float16), A.astype(np.float16), A, tol=1e-2)
check("ops", lambda a, b: (a + b) * 2 - b / 3, (A + B) * 2 - B / 3, A, B)
check("rops", lambda a: 1 - a, 1 - A, A)
check("neg", lambda a: -a, -A, A)
check("pow_op", lambda a: a ** 2, A ** 2, A)
check("bcast_pvec", lambda a: a * nl.sum(a, axis=1), A * A.sum(1, keepdims=True), A)
check("bcast_row", lambda a, w: nl.multiply(a, w), A * W, A, W)
check("broadcast_to", lambda w: w.broadcast_to((16, 32)), np.broadcast_to(W, (16, 32)), W)
check("nl_broadcast_to", lambda w: nl.broadcast_to(w, shape=(16, 32)), np.broadcast_to(W, (16, 32)), W)
check("expand_dims", lambda a: nl.expand_dims(nl.sum(a, axis=1), 1), A.sum(1)[:, None], A)
I = np.random.randint(0, 100, size=(16, 32)).astype(np.int32)
J = np.random.randint(1, 8, size=(16, 32)).astype(np.int32)
check("band", lambda a, b: nl.bitwise_and(a, b), I & J, I, J)
check("bor", lambda a, b: nl.bitwise_or(a, b), I | J, I, J)
check("bxor", lambda a, b: nl.bitwise_xor(a, b), I ^ J, I, J)
check("shl", lambda a, b: nl.left_shift(a, b), I << J, I, J)
check("shr", lambda a, b: nl.right_shift(a, b), I >> J, I, J)
check("invert", lambda a: nl.invert(a), ~I, I)
check("int_add", lambda a, b: a + b, I + J, I, J)
check("gather_flattened", lambda a, i: nl.gather_flattened(a, i), np.array([[A[p, j] for j in row] for p, row in enumerate((J * 3).tolist())], dtype=np.float32), A, (J * 3).astype(np.uint32))
print("done")
