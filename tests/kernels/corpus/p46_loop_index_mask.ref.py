import numpy as np

M, N = 256, 1200


def get_inputs():
    return [np.random.normal(size=(M, N)).astype(np.float32), np.random.normal(size=(1, N)).astype(np.float32)]


def forward(x, w):
    y = np.exp(x)
    y[:, : (N // 256) * 256] *= np.float32(2.0)
    return y.astype(np.float32)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
