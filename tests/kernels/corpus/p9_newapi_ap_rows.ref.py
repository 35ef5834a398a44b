import numpy as np

R, C = 384, 256


def get_inputs():
    return [np.random.normal(size=(R, C)).astype(np.float32), np.random.normal(size=(R,)).astype(np.float32)]


def forward(x, s):
    return x * s[:, None]


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
