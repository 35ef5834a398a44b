# exp(x) per row tile of fp32 x [TILES * 128, COLS], moved through one SBUF-to-SBUF copy (the copy
# pair of this folder).
import numpy as np

TILES = 8
COLS = 512


def get_inputs():
    return [np.random.uniform(-2, 2, size=(TILES * 128, COLS)).astype(np.float32)]


def forward(x):
    return np.exp(x)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
