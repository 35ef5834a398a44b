# Reference of tests/kernels/scratch_tail_nisa.py: out = 0.5 (a - b)^2, a and b (320, 512): two full
# 128-row tiles and a 64-row tail.
import numpy as np

M = 320
N = 512


def get_inputs():
    a = np.random.normal(loc=0, scale=1.0, size=(M, N)).astype(np.float32)
    b = np.random.normal(loc=0, scale=1.0, size=(M, N)).astype(np.float32)
    return [a, b]


def forward(a, b):
    return 0.5 * (a - b) ** 2


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
