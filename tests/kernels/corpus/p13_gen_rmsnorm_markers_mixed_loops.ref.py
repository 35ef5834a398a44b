import numpy as np


def get_inputs():
    x = np.random.normal(size=(256, 1024)).astype(np.float32)
    g = np.random.normal(size=(1, 1024)).astype(np.float32)
    return [x, g]


def forward(x, g):
    z = x.astype(np.float64)
    r = 1.0 / np.sqrt((z * z).mean(axis=1, keepdims=True) + 1e-6)
    return (z * r * g).astype(np.float32)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
