# exp(x) * y for fp32 x, y [TILES * 128, COLS] (the nl-math-vs-ISA pair of this folder).
import numpy as np

TILES = 8
COLS = 512


def get_inputs():
    x = np.random.uniform(-2, 2, size=(TILES * 128, COLS)).astype(np.float32)
    y = np.random.normal(size=(TILES * 128, COLS)).astype(np.float32)
    return [x, y]


def forward(x, y):
    return np.exp(x) * y


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
