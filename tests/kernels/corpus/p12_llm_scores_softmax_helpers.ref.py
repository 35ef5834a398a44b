import numpy as np


def get_inputs():
    qT = np.random.normal(size=(64, 256)).astype(np.float32)
    kT = np.random.normal(size=(64, 384)).astype(np.float32)
    return [qT, kT]


def forward(qT, kT):
    s = (qT.T.astype(np.float64) @ kT.astype(np.float64)) / 8.0
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return (e / e.sum(axis=1, keepdims=True)).astype(np.float32)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]


TOLERANCE = 1e-5
