# Reference of tests/kernels/guarded_cols_*.py: out = xT.T @ w, xT (128, 256), w (128, 1024): N % 512 == 0,
# so the tail guard `if rem > 0:` is decided false (guarded_cols_ragged.ref.py: N = 1280, true).
import numpy as np

M = 256
K = 128
N = 1024


def get_inputs():
    xT = np.random.normal(loc=0, scale=1.0, size=(K, M)).astype(np.float32)
    w = np.random.normal(loc=0, scale=1.0, size=(K, N)).astype(np.float32)
    return [xT, w]


def forward(xT, w):
    return np.matmul(xT.T, w)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
