import numpy as np


def get_inputs():
    return [np.random.normal(size=(200, 256)).astype(np.float32)]


def forward(x):
    z = x.astype(np.float64)
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return (e / e.sum(axis=1, keepdims=True)).astype(np.float32)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
