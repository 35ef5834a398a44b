# xT.T @ w for fp16 xT [K, M] and w [K, N] (the accumulation kernels of this folder).
import numpy as np

K = 1024
M = 512
N = 512


def get_inputs():
    xT = np.random.normal(size=(K, M)).astype(np.float16)
    w = np.random.normal(size=(K, N)).astype(np.float16)
    return [xT, w]


def forward(xT, w):
    return np.matmul(xT.T.astype(np.float32), w.astype(np.float32))


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
