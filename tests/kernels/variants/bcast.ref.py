# a * b**4 with one row b broadcast to every partition: a [128, 4096] fp32, b [1, 4096] fp32
# (the wide-broadcast pair of this folder, bcast_wide / bcast_banks).
import numpy as np


def get_inputs():
    a = np.random.normal(size=(128, 4096)).astype(np.float32)
    b = np.random.uniform(0.5, 1.5, size=(1, 4096)).astype(np.float32)
    return [a, b]


def forward(a, b):
    return (a * b ** 4).astype(np.float32)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [np.reshape(k_res, ref.shape)]
