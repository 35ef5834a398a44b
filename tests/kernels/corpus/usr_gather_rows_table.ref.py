import numpy as np

P, V, K = 128, 64, 32


def get_inputs():
    table = np.random.normal(size=(P, V)).astype(np.float32)
    a = np.random.randint(0, V, size=(P, K)).astype(np.int32)
    b = np.random.randint(0, V, size=(P, K)).astype(np.int32)
    return [table, a, b]


def forward(table, a, b):
    t = table * np.float32(0.5)
    return np.maximum(np.take_along_axis(t, a, -1), np.take_along_axis(t, b, -1)).astype(np.float32)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
