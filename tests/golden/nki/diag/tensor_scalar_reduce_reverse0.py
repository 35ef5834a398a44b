# nisa.tensor_scalar_reduce with reverse0=True: "reverse0 not yet supported" (nki-language.md 8.3).
# The flag was applied silently (operand0 - data) before; the compiler does not take it.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def one_minus_row_sums(x):
    sums = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.shared_hbm)
    t = nl.load(x)
    acc = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
    d = nisa.tensor_scalar_reduce(data=t, op0=nl.subtract, operand0=1.0, reverse0=True, reduce_op=nl.add,
                                  reduce_res=acc)
    nl.store(sums, value=acc)
    return sums


one_minus_row_sums(np.ones((128, 16), dtype=np.float32))
