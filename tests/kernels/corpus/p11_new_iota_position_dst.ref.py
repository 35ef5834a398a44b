import numpy as np


def get_inputs():
    return [np.random.normal(size=(256, 64)).astype(np.float32)]


def forward(x):
    pos = np.arange(x.size, dtype=np.float32).reshape(x.shape)
    return (x + pos * np.float32(0.001)).astype(np.float32)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
