# x.T for fp16 x [TILES * 128, 128] (the load-transpose pair of this folder).
import numpy as np

TILES = 8


def get_inputs():
    return [np.random.normal(size=(TILES * 128, 128)).astype(np.float16)]


def forward(x):
    return np.ascontiguousarray(x.T)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
