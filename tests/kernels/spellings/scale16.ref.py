# 2 * x for fp16 x [TILES * 128, COLS] (the weak-scalar pair of this folder: exact in fp16).
import numpy as np

TILES = 8
COLS = 2048


def get_inputs():
    return [np.random.normal(size=(TILES * 128, COLS)).astype(np.float16)]


def forward(x):
    return x * np.float16(2.0)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
