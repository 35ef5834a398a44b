import numpy as np


def get_inputs():
    return [np.random.normal(size=(350, 64)).astype(np.float32)]


def forward(x):
    return [x.max(axis=0, keepdims=True), x.astype(np.float64).sum(axis=0, keepdims=True).astype(np.float32)]


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return list(k_res)


TOLERANCE = 1e-5
