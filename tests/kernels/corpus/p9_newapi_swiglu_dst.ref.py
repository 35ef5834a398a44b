import numpy as np

M, K, N = 200, 256, 512
TOLERANCE = 1e-4


def get_inputs():
    x = np.random.normal(size=(M, K)).astype(np.float32)
    wg = (np.random.normal(size=(K, N)) * 0.1).astype(np.float32)
    wu = (np.random.normal(size=(K, N)) * 0.1).astype(np.float32)
    return [x, wg, wu]


def forward(x, wg, wu):
    g = x @ wg
    return (g / (1 + np.exp(-g))) * (x @ wu)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
