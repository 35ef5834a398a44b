import numpy as np

R, C = 512, 256


def get_inputs():
    return [np.random.normal(size=(R, C)).astype(np.float32)]


def forward(x):
    return (np.exp(x) + x[:, -1:])


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
