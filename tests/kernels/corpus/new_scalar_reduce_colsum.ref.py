import numpy as np

M, N = 384, 256
TOLERANCE = 1e-5


def get_inputs():
    return [np.random.normal(size=(M, N)).astype(np.float32), 0.25]


def forward(x, scale):
    sq = x * x
    return (sq * scale).sum(axis=1, keepdims=True).astype(np.float32), sq.sum(axis=0, keepdims=True).astype(np.float32)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return list(k_res)
