import numpy as np


def get_inputs():
    x = np.random.normal(size=(300, 256)).astype(np.float32)
    g = np.random.normal(size=(1, 256)).astype(np.float32)
    return [x, g]


def forward(x, g):
    x64 = x.astype(np.float64)
    rstd = 1.0 / np.sqrt((x64 * x64).mean(axis=1, keepdims=True) + 1e-6)
    return (x64 * rstd * g).astype(np.float32)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
