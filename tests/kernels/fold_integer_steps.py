# x (128, 512), values in [-1, 1]. Each step's result is an int32 tile (a quantization: the float
# to int32 conversion truncates), read by the next instruction alone. A fold computes both steps
# in one instruction's fp32, without the truncation between them: every site here would change
# the result, so none is offered (fold_scalar_ops, fold_scale, fold_scalar_tensor_tensor,
# fold_reciprocal, fold_bias, fold_activation_reduce); the float32 twins (the last block) fold.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x):
    R, C = x.shape
    out = nl.ndarray((7 * R, C), dtype=nl.float32, buffer=nl.shared_hbm)
    sums = nl.ndarray((R, 1), dtype=nl.float32, buffer=nl.shared_hbm)
    t = nl.load(x)
    # round(8 x) / 8, by truncation: a two-step tensor_scalar would give x itself
    q0 = nl.multiply(t, 8.0, dtype=nl.int32)
    a = nl.multiply(q0, 0.125)
    nl.store(out[0:R, :], value=a)
    q1 = nl.multiply(t, 4.0, dtype=nl.int32)
    b = nisa.activation(op=nl.exp, data=q1, dtype=nl.float32)
    nl.store(out[R:2 * R, :], value=b)
    q2 = nl.multiply(t, 3.0, dtype=nl.int32)
    c = nl.add(q2, t)
    nl.store(out[2 * R:3 * R, :], value=c)
    d = nl.add(t, 2.0)
    r = nl.reciprocal(d, dtype=nl.int32)
    e = nl.multiply(t, r)
    nl.store(out[3 * R:4 * R, :], value=e)
    m = nl.max(t, axis=1, keepdims=True)
    t4 = nl.multiply(t, 4.0)
    s = nl.subtract(t4, m, dtype=nl.int32)
    f = nisa.activation(op=nl.exp, data=s, dtype=nl.float32)
    nl.store(out[4 * R:5 * R, :], value=f)
    # The same chains in float32: each folds.
    g = nl.multiply(nl.multiply(t, 8.0), 0.125)
    nl.store(out[5 * R:6 * R, :], value=g)
    h = nisa.activation(op=nl.exp, data=nl.multiply(t, 4.0), dtype=nl.float32)
    nl.store(out[6 * R:7 * R, :], value=h)
    # The row sum of an exp written as int32: the engine sums before the output's rounding, so no
    # fold_activation_reduce.
    ei = nisa.activation(op=nl.exp, data=t, dtype=nl.int32)
    si = nl.sum(ei, axis=1, keepdims=True)
    nl.store(sums, value=nl.copy(si, dtype=nl.float32))
    return out, sums
