import numpy as np


def get_inputs():
    return [np.random.randint(0, 96, size=(256, 1)).astype(np.int32)]


def forward(labels):
    hot = (np.arange(96)[None, :] == labels).astype(np.float64)
    return (hot * 0.9 + 0.1 / 96).astype(np.float32)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
