import numpy as np

R, C, G = 256, 192, 4
TOLERANCE = 1e-5


def get_inputs():
    return [np.random.normal(size=(R, C)).astype(np.float32)]


def forward(x):
    return np.mean(x.reshape(R, G, C // G), axis=2)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
