# (a * b + c) * 2 / s for fp32 a, b, c [TILES * 128, COLS] and a positive per-row s [TILES * 128, 1]
# (the operator pairs of this folder).
import numpy as np

TILES = 8
COLS = 512


def get_inputs():
    a = np.random.normal(size=(TILES * 128, COLS)).astype(np.float32)
    b = np.random.normal(size=(TILES * 128, COLS)).astype(np.float32)
    c = np.random.normal(size=(TILES * 128, COLS)).astype(np.float32)
    s = np.random.uniform(0.5, 2.0, size=(TILES * 128, 1)).astype(np.float32)
    return [a, b, c, s]


def forward(a, b, c, s):
    return (a * b + c) * 2.0 / s


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
