# p @ v for fp32 p [128, TILES * 128] and v [TILES * 128, BLOCKS * 128] (the transpose pairs of this
# folder: each 128-column block of p is transposed on the Tensor Engine before its matmul, once
# per 128-column block of v, so that the Tensor Engine bounds the kernel).
import numpy as np

TILES = 32
BLOCKS = 4


def get_inputs():
    p = np.random.rand(128, TILES * 128).astype(np.float32)
    v = np.random.normal(size=(TILES * 128, BLOCKS * 128)).astype(np.float32)
    return [p, v]


def forward(p, v):
    return np.matmul(p, v)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
