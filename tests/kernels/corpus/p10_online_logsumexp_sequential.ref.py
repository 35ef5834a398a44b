import numpy as np

R, C = 256, 2048
TOLERANCE = 1e-5


def get_inputs():
    return [(np.random.normal(size=(R, C)) * 3.0).astype(np.float32)]


def forward(x):
    m = np.max(x, axis=1, keepdims=True)
    return np.log(np.sum(np.exp(x - m), axis=1, keepdims=True)) + m


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
