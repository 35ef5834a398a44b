import numpy as np

ROWS, COLS = 256, 128


def get_inputs():
    return [np.random.normal(size=(ROWS, COLS)).astype(np.float32)]


def forward(x):
    p = np.arange(ROWS)[:, None] % 128
    j = np.arange(COLS)[None, :]
    s = np.where(p - j >= 0, x, -9984.0).astype(np.float32)
    e = np.exp(s - np.max(s, axis=1, keepdims=True))
    y = (e / np.sum(e, axis=1, keepdims=True)).astype(np.float32)
    ids = (np.arange(128)[:, None] * 4 + np.arange(4)[None, :] + 3).astype(np.float32)
    return (y, ids)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return list(k_res)
