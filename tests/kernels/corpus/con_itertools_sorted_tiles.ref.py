import numpy as np


def get_inputs():
    return [np.random.normal(size=(256, 256)).astype(np.float32)]


def forward(x):
    return np.exp(x).astype(np.float32), x.max(axis=1, keepdims=True).astype(np.float32)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [np.reshape(v, r.shape) for v, r in zip(k_res, ref)]
