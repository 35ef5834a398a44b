import numpy as np

ROWS, COLS = 256, 512
SCALE = 0.25


def get_inputs():
    return [np.random.normal(size=(ROWS, COLS)).astype(np.float32), SCALE]


def forward(x, scale):
    return np.cumsum(x * np.float32(scale), axis=1).astype(np.float32)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
