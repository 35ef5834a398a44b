import numpy as np


def get_inputs():
    return [np.random.normal(size=(256, 512)).astype(np.float32)]


def forward(x):
    return np.concatenate([x.min(axis=1, keepdims=True), x.max(axis=1, keepdims=True),
                           (x * x).sum(axis=1, keepdims=True)], axis=1)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
