# Index-space style with a width constant: rows of TF = 1024 fp32 (4 KiB per partition, two
# PSUM banks) broadcast by the DMA. broadcast_on_chip offers the plain move and one that first sets
# TF to 512, so that each broadcast row fits one PSUM bank. out[c, m] = sum_s x[c, m] * w[s, m].
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa
import numpy as np


@nki.jit
def kernel(x, w):
    C, M = x.shape
    S, _ = w.shape
    TF = 1024
    out = nl.ndarray((C, M), dtype=x.dtype, buffer=nl.shared_hbm)
    i_p, i_f = nl.mgrid[0:128, 0:TF]
    for ct in nl.affine_range(C // 128):
        for jt in nl.affine_range(M // TF):
            j = jt * TF + i_f
            x_t = nl.load(x[ct * 128 + i_p, j])
            acc = nl.zeros((nl.par_dim(128), TF), dtype=nl.float32, buffer=nl.sbuf)
            for s in nl.sequential_range(S):
                w_t = nl.load(w[s + 0 * i_p, j])
                acc[...] = nisa.tensor_tensor(acc, nisa.tensor_tensor(x_t, w_t, op=np.multiply), op=np.add)
            nl.store(out[ct * 128 + i_p, j], value=acc)
    return out
