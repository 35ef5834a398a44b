import numpy as np


def get_inputs():
    return [np.random.normal(size=(3, 128, 48)).astype(np.float32)]


def forward(x):
    return np.cumsum(x, axis=0).astype(np.float32)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [np.reshape(k_res, ref.shape)]
