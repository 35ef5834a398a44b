import numpy as np

D, S = 128, 1024


def get_inputs():
    x = np.random.normal(size=(D, S)).astype(np.float32)
    cos = np.random.normal(size=(D // 2, S)).astype(np.float32)
    sin = np.random.normal(size=(D // 2, S)).astype(np.float32)
    return [x, cos, sin]


def forward(x, cos, sin):
    h = D // 2
    x0, x1 = x[:h], x[h:]
    return np.concatenate([x0 * cos - x1 * sin, x0 * sin + x1 * cos], axis=0)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
