import numpy as np

N, D = 256, 384
TOLERANCE = 1e-5


def get_inputs():
    return [np.random.normal(size=(N, D)).astype(np.float32) * 3]


def forward(x):
    s = x - x.max(axis=1, keepdims=True)
    e = np.exp(s)
    return (e / e.sum(axis=1, keepdims=True)).astype(np.float32), s.astype(np.float32)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return list(k_res)
