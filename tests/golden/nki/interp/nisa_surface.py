# The nki.language / nki.isa surface of nki-language.md sections 7-9, each API run as a one-
# instruction kernel from host code and compared with the numpy expression of its documented
# semantics (numpy itself is checked against real numpy by tests/golden/numpy). One line per API:
# "ok" or what differs.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa

np.random.seed(1)
A = (np.random.rand(16, 32).astype(np.float32) - 0.5) * 4
B = (np.random.rand(16, 32).astype(np.float32) - 0.5) * 4
S = np.random.rand(16, 1).astype(np.float32) + 0.5
K1 = np.random.rand(16, 8).astype(np.float32)
K2 = np.random.rand(16, 32).astype(np.float32)

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

check("nc_matmul", lambda a, b: nisa.nc_matmul(a, b), K1.T @ K2, K1, K2, tol=1e-3)
check("nc_matmul_kw", lambda a, b: nisa.nc_matmul(stationary=a, moving=b), K1.T @ K2, K1, K2, tol=1e-3)
check("nc_transpose", lambda a: nisa.nc_transpose(a), A.T, A)
check("nc_transpose_ve", lambda a: nisa.nc_transpose(a[:, 0:16], engine=nisa.vector_engine), A[:, :16].T, A)
check("activation", lambda a, s: nisa.activation(op=nl.exp, data=a, bias=s, scale=2.0), np.exp(A * 2 + S), A, S)
check("activation_vscale", lambda a, s: nisa.activation(op=nl.tanh, data=a, scale=s), np.tanh(A * S), A, S)
check("activation_pos", lambda a: nisa.activation(np.exp, a), np.exp(A), A)
def act_red(a):
    r = nl.ndarray((16, 1), dtype=nl.float32)
    t = nisa.activation(op=nl.exp, data=a, reduce_op=nl.add, reduce_res=r, reduce_cmd=nisa.reduce_cmd.reset_reduce)
    return r
check("activation_reduce_res", act_red, np.exp(A).sum(1, keepdims=True), A, tol=1e-3)
def act_red2(a):
    r = nl.ndarray((16, 1), dtype=nl.float32)
    t = nisa.activation_reduce(op=nl.exp, data=a, reduce_op=nl.add, reduce_res=r)
    return r
check("activation_reduce", act_red2, np.exp(A).sum(1, keepdims=True), A, tol=1e-3)
check("tensor_tensor", lambda a, b: nisa.tensor_tensor(a, b, op=nl.multiply), A * B, A, B)
check("tensor_tensor_pos", lambda a, b: nisa.tensor_tensor(a, b, nl.subtract), A - B, A, B)
check("tensor_tensor_np", lambda a, b: nisa.tensor_tensor(data1=a, data2=b, op=np.maximum), np.maximum(A, B), A, B)
check("tensor_scalar", lambda a: nisa.tensor_scalar(a, np.subtract, 1.0, reverse0=True), 1 - A, A)
check("tensor_scalar2", lambda a, s: nisa.tensor_scalar(data=a, op0=nl.multiply, operand0=s, op1=nl.add, operand1=3.0), A * S + 3, A, S)
check("tensor_scalar_rev1", lambda a, s: nisa.tensor_scalar(a, nl.add, s, op1=nl.subtract, operand1=2.0, reverse1=True), 2.0 - (A + 10 + S), A + 10, S, tol=1e-3)
check("stt", lambda a, s, b: nisa.scalar_tensor_tensor(data=a, op0=nl.multiply, operand0=s, op1=nl.add, operand1=b), A * S + B, A, S, B)
check("tensor_reduce", lambda a: nisa.tensor_reduce(nl.max, a, axis=[1]), A.max(1), A)
check("tensor_reduce_neg", lambda a: nisa.tensor_reduce(op=nl.add, data=a, axis=1, negate=True, keepdims=True), -A.sum(1, keepdims=True), A, tol=1e-3)
check("tensor_reduce_npsum", lambda a: nisa.tensor_reduce(np.sum, a, axis=(1,)), A.sum(1), A, tol=1e-3)
check("tensor_partition_reduce", lambda a: nisa.tensor_partition_reduce(np.add, a), A.sum(0, keepdims=True), A, tol=1e-3)
def tsr(a):
    r = nl.ndarray((16, 1), dtype=nl.float32)
    t = nisa.tensor_scalar_reduce(data=a, op0=np.multiply, operand0=0.5, reduce_op=nl.max, reduce_res=r)
    return r
check("tensor_scalar_reduce", tsr, (A * 0.5).max(1, keepdims=True), A)
def scan_ref(a, b, init):
    r = np.zeros_like(a)
    prev = init
    for i in range(a.shape[1]):
        prev = a[:, i:i+1] * prev + b[:, i:i+1]
        r[:, i:i+1] = prev
    return r
check("scan", lambda a, b: nisa.tensor_tensor_scan(a, b, initial=0, op0=np.multiply, op1=np.add), scan_ref(A / 4, B, 0), A / 4, B, tol=1e-3)
check("scan_vec", lambda a, b, s: nisa.tensor_tensor_scan(a, b, s, np.multiply, np.add), scan_ref(A / 4, B, S), A / 4, B, S, tol=1e-3)
check("reciprocal", lambda a: nisa.reciprocal(a), 1 / (A + 10), A + 10)
check("tensor_copy", lambda a: nisa.tensor_copy(a, dtype=nl.bfloat16), A, A, tol=2e-2)
check("memset", lambda a: nisa.memset(shape=(16, 4), value=3.0, dtype=nl.float32), np.full((16, 4), 3.0, np.float32), A)
check("iota", lambda a: nisa.iota(2 * nl.arange(16)[:, None] + nl.arange(4)[None, :], dtype=nl.int32), 2 * np.arange(16)[:, None] + np.arange(4)[None, :], A)
i_p = nl.arange(16)[:, None]
i_f = nl.arange(32)[None, :]
check("affine_select", lambda a: nisa.affine_select(pred=(i_p - i_f >= 0), on_true_tile=a, on_false_value=-9984.0), np.where(np.arange(16)[:, None] >= np.arange(32)[None, :], A, -9984.0), A)
def bn(a):
    st = nisa.bn_stats(a)
    return nisa.bn_aggr(st)
check("bn_stats_aggr", bn, np.concatenate([A.mean(1, keepdims=True), ((A - A.mean(1, keepdims=True))**2).mean(1, keepdims=True)], axis=1), A, tol=1e-3)
check("dma_transpose", lambda a: nisa.dma_transpose(a), A.T, A)
def tcp(a, b):
    pred = nl.greater(a, 0, dtype=nl.uint8)
    dst = nl.ndarray((16, 32), dtype=nl.float32)
    dst[...] = nl.copy(b)
    nisa.tensor_copy_predicated(src=a, dst=dst, predicate=pred)
    return dst
check("tensor_copy_predicated", tcp, np.where(A > 0, A, B), A, B)
print("done")
