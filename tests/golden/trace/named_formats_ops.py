# What the kernel says, in the trace: a uint8 tile is u8 (not the one-byte float8), an fp16 tile
# fp16 (not bf16), and a comparison, a division, a remainder and a logical op are named as such
# (nki-language.md 6, 9.1), where they all printed `other` before. The remainder is the language's
# nl.mod: the ISA operator table has none (9.1), so no instruction takes it as its operator.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa

INPUT_SHAPES = [(128, 64)]


@nki.jit
def kernel(x):
    out = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.shared_hbm)
    t = nl.load(x)
    u = nl.copy(t, dtype=nl.uint8)
    h = nl.copy(t, dtype=nl.float16)
    g = nisa.tensor_scalar(t, op0=nl.greater, operand0=0.5, dtype=nl.float32)
    d = nl.divide(t, g)
    m = nl.less_equal(nl.mod(d, 2.0), 1.0)
    l = nisa.tensor_tensor(m, g, op=nl.logical_and, dtype=nl.float32)
    s = nl.add(nl.copy(u, dtype=nl.float32), nl.copy(h, dtype=nl.float32))
    nl.store(out, value=nl.add(s, l))
    return out
