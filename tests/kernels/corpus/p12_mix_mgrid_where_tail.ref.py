import numpy as np


def get_inputs():
    return [(np.random.normal(size=(300, 96)) * 2.0).astype(np.float32)]


def forward(x):
    return np.minimum(np.where(x > 0, x, x * np.float32(0.2)), np.float32(2.0)).astype(np.float32)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
