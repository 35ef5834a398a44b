import numpy as np

M, N = 200, 1024


def get_inputs():
    return [np.random.normal(size=(M, N)).astype(np.float32)]


def forward(x):
    return (x / (1.0 + np.exp(-x)) * 0.5).astype(np.float32)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
