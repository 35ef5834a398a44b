import numpy as np


def get_inputs():
    return [np.random.normal(size=(256, 384)).astype(np.float32)]


def forward(x):
    return np.tanh(x.T.astype(np.float64) * 0.5).astype(np.float32)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
