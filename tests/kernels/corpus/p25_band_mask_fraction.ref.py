import numpy as np


def get_inputs():
    return [np.random.normal(size=(256, 16)).astype(np.float32) * np.float32(0.6),
            np.random.normal(size=(256, 16)).astype(np.float32) * np.float32(0.3)]


def forward(x, lo):
    inside = (x < 1.0) & (lo >= -0.5)
    frac = inside.astype(np.float32).sum(axis=1, keepdims=True) * np.float32(1.0 / x.shape[1])
    return [frac.astype(np.float32), np.all(inside, axis=1, keepdims=True).astype(np.float32)]


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return list(k_res)
