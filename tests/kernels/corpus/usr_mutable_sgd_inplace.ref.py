import numpy as np

M, N = 256, 512


def get_inputs():
    return [np.random.normal(size=(M, N)).astype(np.float32) for _ in range(3)]


def forward(param, grad, velocity):
    v = np.float32(0.9) * velocity + grad
    return param - v * np.float32(0.05), v


def transform_to_nki_inputs(inputs):
    return [x.copy() for x in inputs]


def transform_nki_outputs(k_res, ref):
    return list(k_res)
