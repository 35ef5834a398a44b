import numpy as np

M, N = 200, 256


def get_inputs():
    return [np.random.normal(size=(M, N)).astype(np.float32), np.random.normal(size=(1, N)).astype(np.float32)]


def forward(scores, bias):
    r = np.arange(M)[:, None]
    c = np.arange(N)[None, :]
    band = np.abs(c - r) <= 8
    return np.where(band, scores + bias, np.float32(-30.0)).astype(np.float32)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
