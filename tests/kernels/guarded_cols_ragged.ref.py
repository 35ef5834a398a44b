# Reference of tests/kernels/guarded_cols_*.py at N = 1280: the tail guard `if rem > 0:` holds (256
# columns); guarded_cols.ref.py has N = 1024.
import numpy as np

M = 256
K = 128
N = 1280


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
