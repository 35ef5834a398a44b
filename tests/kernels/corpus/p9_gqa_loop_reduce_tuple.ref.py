import numpy as np

R, C = 256, 2048
TOLERANCE = 1e-5


def get_inputs():
    return [(np.random.normal(size=(R, C)) * 3).astype(np.float32)]


def forward(s):
    m = np.max(s, axis=1, keepdims=True)
    return np.log(np.sum(np.exp(s - m), axis=1, keepdims=True)) + m


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
