import numpy as np

N, D = 256, 512
TOLERANCE = 1e-5


def get_inputs():
    return [np.random.normal(size=(N, D)).astype(np.float32), np.random.rand(1, D).astype(np.float32)]


def forward(x, w):
    y = x / np.sqrt((x * x).mean(axis=1, keepdims=True) + 1e-6) * w
    return y.astype(np.float32), y.astype(np.float32)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return list(k_res)
