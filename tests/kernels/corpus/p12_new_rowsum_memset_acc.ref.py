import numpy as np


def get_inputs():
    return [np.random.normal(size=(256, 1000)).astype(np.float32)]


def forward(x):
    s = x.astype(np.float64).sum(axis=1, keepdims=True)
    return [s.astype(np.float32), (s / x.shape[1]).astype(np.float32)]


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return list(k_res)
