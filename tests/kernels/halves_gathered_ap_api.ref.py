# Reference of halves_gathered_ap_api.py: x (128, L) in two 64-row halves and a (64, L) gain g:
# [lo * g + hi ; hi * g - lo].
import numpy as np

D = 128
L = 2048


def get_inputs():
    x = np.random.normal(loc=0, scale=1.0, size=(D, L)).astype(np.float32)
    g = np.random.normal(loc=0, scale=1.0, size=(D // 2, L)).astype(np.float32)
    return [x, g]


def forward(x, g):
    lo, hi = x[: D // 2], x[D // 2 :]
    return np.concatenate([lo * g + hi, hi * g - lo], axis=0)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [np.reshape(k_res, ref.shape)]
