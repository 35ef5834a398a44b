import numpy as np

TOLERANCE = 1e-5


def get_inputs():
    x = np.random.normal(size=(256, 1024)).astype(np.float32)
    return [x]


def forward(x):
    m = x.max(axis=1, keepdims=True)
    e = np.exp(x - m)
    return e / e.sum(axis=1, keepdims=True)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return k_res
