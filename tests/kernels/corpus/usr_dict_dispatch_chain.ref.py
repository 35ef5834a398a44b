import numpy as np

M, N = 384, 1024


def get_inputs():
    return [np.random.normal(size=(M, N)).astype(np.float32)]


def forward(x):
    y = np.minimum(np.maximum(x * 1.5 - 0.25, -1.0), 2.0)
    y[:128] *= 2.0
    return y.astype(np.float32)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
