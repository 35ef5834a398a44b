# 2 x + 1 on fp32 x [128, COLS] (the transfer-shape pair of this folder).
import numpy as np

COLS = 2048


def get_inputs():
    return [np.random.normal(size=(128, COLS)).astype(np.float32)]


def forward(x):
    return (2.0 * x + 1.0).astype(np.float32)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
