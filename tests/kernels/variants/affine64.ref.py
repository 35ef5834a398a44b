# ROUNDS of x <- 0.9 x + 0.05 on fp32 x [64, COLS]: data on 64 partitions (the 64-partition pair).
import numpy as np

COLS = 4096
ROUNDS = 8


def get_inputs():
    return [np.random.normal(size=(64, COLS)).astype(np.float32)]


def forward(x):
    y = x.astype(np.float32)
    for _ in range(ROUNDS):
        y = (y * np.float32(0.9) + np.float32(0.05)).astype(np.float32)
    return y


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
