import numpy as np

M, N = 256, 512


def get_inputs():
    return [np.random.normal(size=(M, N)).astype(np.float32), np.random.normal(size=(M, N)).astype(np.float32)]


def forward(x, g):
    sig = lambda v: 1.0 / (1.0 + np.exp(-v))
    y = np.maximum(x * sig(x) + 0.5, 0.0)
    return (y * sig(g)).astype(np.float32)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
