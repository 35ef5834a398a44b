import numpy as np

ROWS, COLS = 256, 384
EPS = 1e-5


def get_inputs():
    return [np.random.normal(size=(ROWS, COLS)).astype(np.float32)]


def forward(x):
    mean = x.mean(axis=1, keepdims=True)
    var = x.var(axis=1, keepdims=True)
    return ((x - mean) / np.sqrt(var + EPS)).astype(np.float32)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
