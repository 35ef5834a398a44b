import numpy as np

K, M, N = 256, 128, 1024


def get_inputs():
    a_t = np.random.normal(size=(K, M)).astype(np.float32)
    b = np.random.normal(size=(K, N)).astype(np.float32)
    return [a_t, b]


def forward(a_t, b):
    return (a_t.T @ b).astype(np.float32)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
