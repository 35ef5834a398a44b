import numpy as np


def get_inputs():
    return [np.random.normal(size=(512, 256)).astype(np.float32)]


def forward(x):
    return x.astype(np.float64).mean(axis=0, keepdims=True).astype(np.float32)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
