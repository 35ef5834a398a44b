# Index-space style: a state row w[s] replicated over the 128 channel partitions by the DMA itself
# (the partition index enters with coefficient 0), multiplied into x and summed over the states.
# out[c, m] = sum_s x[c, m] * w[s, m]. broadcast_on_chip loads each row once and broadcasts it on chip.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa
import numpy as np


@nki.jit
def kernel(x, w):
    C, M = x.shape
    S, _ = w.shape
    out = nl.ndarray((C, M), dtype=x.dtype, buffer=nl.shared_hbm)
    i_p, i_f = nl.mgrid[0:128, 0:M]
    for ct in nl.affine_range(C // 128):
        x_t = nl.load(x[ct * 128 + i_p, i_f])
        acc = nl.zeros((nl.par_dim(128), M), dtype=nl.float32, buffer=nl.sbuf)
        for s in nl.sequential_range(S):
            # w[s, :] on every partition
            w_t = nl.load(w[s + 0 * i_p, i_f])
            prod = nisa.tensor_tensor(x_t, w_t, op=np.multiply)
            acc[...] = nisa.tensor_tensor(acc, prod, op=np.add)
        nl.store(out[ct * 128 + i_p, i_f], value=acc)
    return out
