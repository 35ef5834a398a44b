import numpy as np


def get_inputs():
    return [np.random.normal(size=(256, 768)).astype(np.float32)]


def forward(x):
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=1, keepdims=True)
    var = x64.var(axis=1, keepdims=True)
    return ((x64 - mean) / np.sqrt(var + 1e-5)).astype(np.float32)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]


TOLERANCE = 1e-5
