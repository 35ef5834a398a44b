import numpy as np


def get_inputs():
    x = np.random.normal(size=(256, 128)).astype(np.float32)
    w = np.random.normal(size=(1, 128)).astype(np.float32)
    return [x, w]


def forward(x, w):
    z = x.astype(np.float64)
    h = z / np.sqrt((z * z).sum(axis=1, keepdims=True) / z.shape[1] + 1e-6) * w
    e = np.exp(h - h.max(axis=1, keepdims=True))
    return (e / e.sum(axis=1, keepdims=True)).astype(np.float32)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
