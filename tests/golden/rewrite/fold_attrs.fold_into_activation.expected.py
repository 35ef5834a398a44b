# inputs: 128x512 128x1
# The text folds (fold_tensor_scalar, fold_into_activation, fuse_silu) where the merged calls
# carry more than the fold prints: a compound constant (`lo + hi`) multiplied into a scale, a
# reciprocal that rounds to int32, an exp(-x) with a bias, and a step whose data is bound again
# before its result is read. Every site computes the same outputs.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x, c):
    out = nl.ndarray((128, 2560), dtype=nl.float32, buffer=nl.shared_hbm)
    t = nl.load(x)
    b = nl.load(c)
    lo = 0.25
    hi = 0.25
    act = nisa.activation(op=nl.exp, data=t, scale=(lo + hi) * 2.0)
    nl.store(out[:, 0:512], value=act)
    shifted = nisa.tensor_scalar(data=t, op0=nl.add, operand0=2.0)
    inv = nl.reciprocal(shifted, dtype=nl.int32)
    nl.store(out[:, 512:1024], value=nl.copy(inv, dtype=nl.float32))
    e = nisa.activation(op=nl.exp, data=t, scale=-1.0, bias=b)
    d = nl.add(e, 1.0)
    sig = nisa.reciprocal(d)
    nl.store(out[:, 1024:1536], value=sig)
    s = t
    step = nisa.tensor_scalar(data=s, op0=nl.multiply, operand0=3.0)
    s = nl.exp(t)
    moved = nl.add(step, 1.0)
    nl.store(out[:, 1536:2048], value=nl.add(moved, s))
    u = t
    scaled = nisa.tensor_scalar(data=u, op0=nl.multiply, operand0=-0.5)
    u = nl.exp(t)
    u2 = nisa.activation(op=nl.tanh, data=scaled)
    nl.store(out[:, 2048:2560], value=nl.add(u2, u))
    return out
