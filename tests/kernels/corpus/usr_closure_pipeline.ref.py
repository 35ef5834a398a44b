import numpy as np


def get_inputs():
    return [np.random.normal(size=(256, 128)).astype(np.float32)]


def forward(x):
    return (0.5 * np.maximum(np.tanh(2.0 * x + 1.0), 0.0)).astype(np.float32)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
