# bf16 inputs through nki.isa called directly with dtype= and mask= keywords: the rows are
# 200 (a ragged last tile of 72), so every instruction of the last tile carries mask=(rows < M)
# built from an nl.arange grid in an nl.affine_range; tensor_tensor adds the bias in bf16,
# activation(op=nl.tanh, scale=0.5) computes in fp32 and the result is stored back as bf16.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x, bias):
    M, N = x.shape
    out = nl.ndarray((M, N), dtype=nl.bfloat16, buffer=nl.shared_hbm)
    i_p = nl.arange(128)[:, None]
    i_f = nl.arange(N)[None, :]
    bias_tile = nl.load(bias[nl.arange(1)[:, None], i_f])
    bias_all = nl.broadcast_to(bias_tile, shape=(128, N))
    for r in nl.affine_range((M + 127) // 128):
        rows = r * 128 + i_p
        t = nl.load(x[rows, i_f], mask=(rows < M))
        s = nisa.tensor_tensor(t, bias_all, op=nl.add, dtype=nl.bfloat16, mask=(rows < M))
        h = nisa.activation(op=nl.tanh, data=s, scale=0.5, dtype=nl.float32, mask=(rows < M))
        y = nisa.tensor_scalar(data=h, op0=nl.multiply, operand0=2.0, op1=nl.add, operand1=1.0,
                               dtype=nl.bfloat16, mask=(rows < M))
        nl.store(out[rows, i_f], value=y, mask=(rows < M))
    return out
