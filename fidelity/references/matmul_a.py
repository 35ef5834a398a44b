# result = a @ rhs with a [M, K] (not transposed) and rhs [K, N].
import numpy as np

M = 512
K = 512
N = 1024


def get_inputs():
    a = np.random.normal(loc=0, scale=1.0, size=(M, K)).astype(np.float32)
    rhs = np.random.normal(loc=0, scale=1.0, size=(K, N)).astype(np.float32)
    return [a, rhs]


def forward(a, rhs):
    return np.matmul(a, rhs)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    if not isinstance(k_res, tuple):
        k_res = (k_res,)
    return [np.reshape(k_res[0], ref.shape)]
