# exp(x) for fp32 x [128, 21 * 512 + 192] (the ragged-block pair of this folder: 21 full
# 512-column blocks and a 192-column tail).
import numpy as np

N = 21 * 512 + 192


def get_inputs():
    return [np.random.uniform(-2, 2, size=(128, N)).astype(np.float32)]


def forward(x):
    return np.exp(x)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
