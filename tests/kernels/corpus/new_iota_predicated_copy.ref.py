import numpy as np

R, C = 256, 512


def get_inputs():
    return [np.random.normal(size=(R, C)).astype(np.float32), np.random.normal(size=(R, C)).astype(np.float32)]


def forward(x, y):
    r = np.arange(R)[:, None]
    c = np.arange(C)[None, :]
    return np.where(c >= r, y, x).astype(np.float32)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
