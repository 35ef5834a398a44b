import numpy as np

ROWS, COLS = 256, 512


def get_inputs():
    x = np.random.normal(scale=2.0, size=(ROWS, COLS)).astype(np.float32)
    return [x]


def forward(x):
    d2 = x * x + np.float32(1.0)
    return (x / np.sqrt(d2) + np.float32(1.0) / d2 - np.abs(x)).astype(np.float32)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
