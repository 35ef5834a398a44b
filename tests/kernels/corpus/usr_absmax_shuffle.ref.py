import numpy as np

ROWS, COLS = 256, 256


def get_inputs():
    return [np.random.normal(size=(ROWS, COLS)).astype(np.float32)]


def forward(x):
    a, b = np.split(x, 2, axis=1)
    folded = np.where(np.abs(b) > np.abs(a), b, a)
    amax = np.max(np.abs(x), axis=1, keepdims=True)
    y = x / amax
    quadrants = y.reshape(ROWS // 32, 32, COLS)[:, ::-1, :]
    return folded.astype(np.float32), quadrants.reshape(ROWS, COLS).astype(np.float32)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return list(k_res)
