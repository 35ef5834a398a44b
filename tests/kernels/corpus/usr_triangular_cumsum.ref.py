import numpy as np

M, N = 384, 256


def get_inputs():
    return [np.random.normal(size=(M, N)).astype(np.float32)]


def forward(x):
    return np.cumsum(x, axis=0, dtype=np.float32)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
