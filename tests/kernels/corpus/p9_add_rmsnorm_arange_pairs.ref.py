import numpy as np

N, D = 256, 1024
TOLERANCE = 1e-5


def get_inputs():
    x = np.random.normal(size=(N, D)).astype(np.float32)
    r = np.random.normal(size=(N, D)).astype(np.float32)
    g = np.random.normal(size=(1, D)).astype(np.float32)
    return [x, r, g]


def forward(x, r, g):
    h = x + r
    return h / np.sqrt(np.mean(h * h, axis=1, keepdims=True) + 1e-6) * g, h


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return list(k_res)
