# nki-language.md 1.7: legacy call shapes (shared_constant with dtype, loop_reduce, activation_reduce with name=, load with dtype=).
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def k(a):
    out = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.shared_hbm)
    ident = nl.shared_constant(np.identity(128, dtype=np.int8), dtype=nl.bfloat16)
    acc = nl.zeros((128, 1), dtype=nl.float32, buffer=nl.sbuf)
    for i in nl.affine_range(2):
        t = nl.load(a[:, nl.ds(i * 4, 4)], dtype=nl.float32)
        s = nl.loop_reduce(t, op=np.add, loop_indices=[i], dtype=nl.float32)
    r = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
    e = nisa.activation_reduce(nl.exp, t, reduce_op=np.add, reduce_res=r, bias=None, name="x")
    m = nl.max(t, axis=1)
    nl.store(out, value=r)
    return out


a = np.random.rand(128, 8).astype(np.float32)
print(np.allclose(k(a)[:, 0], np.exp(a[:, 4:]).sum(axis=1), rtol=1e-4))
