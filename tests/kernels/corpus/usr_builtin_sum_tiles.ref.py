import numpy as np

M, N = 256, 320


def get_inputs():
    return [np.random.normal(size=(M, N)).astype(np.float32) for _ in range(3)]


def forward(x0, x1, x2):
    mixed = np.float32(0.5) * x0 + np.float32(0.25) * x1 + np.float32(0.25) * x2
    return np.clip(mixed, -1.0, 0.75) + np.float32(0.1) * np.abs(x0) ** 2


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
