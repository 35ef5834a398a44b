import numpy as np


def get_inputs():
    return [np.random.normal(size=(256, 256)).astype(np.float32)]


def forward(x):
    return np.abs(x).reshape(256, 4, 64).max(axis=1).astype(np.float32)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
