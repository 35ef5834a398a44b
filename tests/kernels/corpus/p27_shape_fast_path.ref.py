import numpy as np

TOLERANCE = 1e-5


def get_inputs():
    return [np.random.normal(size=(256, 192)).astype(np.float32)]


def forward(x):
    return (0.5 * np.exp(x)).astype(np.float32)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
