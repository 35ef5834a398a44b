import numpy as np

B, M, K, N = 2, 256, 64, 1024
TOLERANCE = 1e-4


def get_inputs():
    return [np.random.normal(size=(B, M, K)).astype(np.float32), np.random.normal(size=(B, K, N)).astype(np.float32)]


def forward(lhs, rhs):
    return np.matmul(lhs, rhs)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
