# ROUNDS of z <- z * y on bf16 x, y [TILES * 128, COLS] (z starts at x), result bf16: the
# tensor_tensor dtype pair of this folder.
import numpy as np
import ml_dtypes

TILES = 4
COLS = 2048
ROUNDS = 6


def get_inputs():
    x = np.random.normal(size=(TILES * 128, COLS)).astype(ml_dtypes.bfloat16)
    y = np.random.uniform(0.9, 1.1, size=(TILES * 128, COLS)).astype(ml_dtypes.bfloat16)
    return [x, y]


def forward(x, y):
    z = x.astype(np.float32)
    yf = y.astype(np.float32)
    for _ in range(ROUNDS):
        z = z * yf
    return z.astype(ml_dtypes.bfloat16)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
