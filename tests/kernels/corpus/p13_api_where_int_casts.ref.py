import numpy as np


def get_inputs():
    x = np.random.normal(size=(256, 96)).astype(np.float32)
    labels = np.random.randint(0, 2, size=(256, 96)).astype(np.int32)
    return [x, labels]


def forward(x, labels):
    sq = -(x.astype(np.float64) ** 2)
    pos = np.where(labels > 0.5, sq, 0.0)
    mn = pos.min(axis=1, keepdims=True)
    return np.abs(pos - mn).astype(np.float32)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
