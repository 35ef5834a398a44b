import numpy as np


def get_inputs():
    x = np.random.normal(size=(128, 1024)).astype(np.float32)
    return [x]


def forward(x):
    return x.reshape(128, 8, 128).sum(axis=1)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [np.reshape(k_res, ref.shape)]
