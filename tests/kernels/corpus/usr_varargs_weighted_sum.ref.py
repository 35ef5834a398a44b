import numpy as np


def get_inputs():
    return [np.random.normal(size=(256, 128)).astype(np.float32) for _ in range(3)]


def forward(a, b, c):
    return (a + 0.5 * b + 0.25 * c).astype(np.float32)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
