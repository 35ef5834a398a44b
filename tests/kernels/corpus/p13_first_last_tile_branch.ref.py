import numpy as np


def get_inputs():
    x = np.random.normal(size=(300, 256)).astype(np.float32)
    w = np.random.normal(size=(1, 256)).astype(np.float32)
    return [x, w]


def forward(x, w):
    z = x.astype(np.float64)
    return (z / np.sqrt((z * z).mean(axis=1, keepdims=True) + 1e-6) * w).astype(np.float32)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
