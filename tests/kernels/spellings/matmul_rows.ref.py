# x @ w for fp16 x [M, K] (rows, not transposed) and w [K, N] (the nl.matmul-without-transpose_x
# kernels of this folder).
import numpy as np

K = 512
M = 512
N = 512


def get_inputs():
    x = np.random.normal(size=(M, K)).astype(np.float16)
    w = np.random.normal(size=(K, N)).astype(np.float16)
    return [x, w]


def forward(x, w):
    return np.matmul(x.astype(np.float32), w.astype(np.float32))


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
