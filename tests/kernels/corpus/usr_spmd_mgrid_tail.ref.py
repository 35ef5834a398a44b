import numpy as np

M, N = 300, 700


def get_inputs():
    x = np.random.normal(size=(M, N)).astype(np.float32)
    y = np.random.normal(size=(M, N)).astype(np.float32)
    return [x, y]


def forward(x, y):
    return np.maximum(x, 0.0) * y + (-x) * 0.125


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
