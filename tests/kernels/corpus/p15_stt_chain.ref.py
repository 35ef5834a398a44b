# 16 steps t = (t - 0.5) * y over [512, 2048] float32: one scalar_tensor_tensor per step, or a
# tensor_scalar and a tensor_tensor (the pair p15_two_step_chain.py).
import numpy as np


def get_inputs():
    x = np.random.normal(size=(512, 2048)).astype(np.float32)
    y = np.random.uniform(0.5, 1.0, size=(512, 2048)).astype(np.float32)
    return [x, y]


def forward(x, y):
    t = x
    for _ in range(16):
        t = (t - np.float32(0.5)) * y
    return t


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [np.reshape(k_res, ref.shape)]
