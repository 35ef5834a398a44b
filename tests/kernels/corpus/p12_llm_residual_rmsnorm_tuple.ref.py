import numpy as np


def get_inputs():
    x = np.random.normal(size=(256, 384)).astype(np.float32)
    r = np.random.normal(size=(256, 384)).astype(np.float32)
    w = np.random.normal(size=(1, 384)).astype(np.float32)
    return [x, r, w]


def forward(x, r, w):
    h = x.astype(np.float64) + r
    y = h / np.sqrt((h * h).mean(axis=1, keepdims=True) + 1e-6) * w
    return [h.astype(np.float32), y.astype(np.float32)]


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return list(k_res)
