import numpy as np


def get_inputs():
    return [np.random.rand(128, 1024).astype(np.float32)]


def transform_to_nki_inputs(inputs):
    return inputs


def forward(x):
    return np.exp(x) + 1.0
