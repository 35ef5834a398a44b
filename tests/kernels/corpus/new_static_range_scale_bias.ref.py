import numpy as np

ROWS, COLS = 256, 512


def get_inputs():
    x = np.random.normal(size=(ROWS, COLS)).astype(np.float32)
    s = np.random.normal(size=(ROWS, 1)).astype(np.float32)
    return [x, s]


def forward(x, s):
    return np.maximum(x * s + 0.5, 0).astype(np.float32)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
