import numpy as np


def get_inputs():
    x = (np.random.normal(size=(128, 256)) * 2.0).astype(np.float32)
    g = np.random.normal(size=(128, 256)).astype(np.float32)
    return [x, g]


def forward(x, g):
    y = x.astype(np.float64) / (1.0 + np.exp(-g.astype(np.float64)))
    return np.clip(y, -1.0, 1.0).T.astype(np.float32)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
