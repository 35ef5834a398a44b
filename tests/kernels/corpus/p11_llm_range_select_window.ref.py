import numpy as np

WINDOW = 64


def get_inputs():
    return [np.random.normal(size=(256, 256)).astype(np.float32)]


def forward(s):
    S = s.shape[0]
    r = np.arange(S)[:, None]
    c = np.arange(s.shape[1])[None, :]
    keep = (c > r - WINDOW) & (c <= r)
    return np.where(keep, s, -np.inf).max(axis=1, keepdims=True).astype(np.float32)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
