# exp(x) for fp32 x [R, COLS] with R = 7 * 128 + 104: seven full row tiles and a 104-row tail (the
# ragged-partition pair of this folder).
import numpy as np

R = 7 * 128 + 104
COLS = 512


def get_inputs():
    return [np.random.uniform(-2, 2, size=(R, COLS)).astype(np.float32)]


def forward(x):
    return np.exp(x)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
