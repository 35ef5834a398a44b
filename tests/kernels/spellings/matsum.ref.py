# xT.T @ w for fp32 xT [K, M] and w [K, N], K = 16 blocks of 128: sixteen [128, 512] fp32 partial
# products per row tile, 32 KiB per partition together, twice a PSUM partition (matsum_*.py).
import numpy as np

K = 2048
M = 256
N = 512


def get_inputs():
    xT = np.random.normal(size=(K, M)).astype(np.float32)
    w = np.random.normal(size=(K, N)).astype(np.float32)
    return [xT, w]


def forward(xT, w):
    return np.matmul(xT.T, w)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
