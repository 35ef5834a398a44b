import numpy as np

ROWS = 448
COLS = 256


def get_inputs():
    x = np.random.normal(size=(ROWS, COLS)).astype(np.float32)
    bias = np.random.normal(size=(128, COLS)).astype(np.float32)
    return [x, bias]


def forward(x, bias):
    return np.exp(x) * 0.5 + np.tile(bias, (4, 1))[:ROWS]


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
