import numpy as np
import ml_dtypes

TOLERANCE = 1e-2


def get_inputs():
    x = np.random.normal(size=(128, 300)).astype(ml_dtypes.bfloat16)
    s = np.random.normal(size=(1, 300)).astype(np.float32)
    return [x, s]


def forward(x, s):
    return (x.astype(np.float32) * s).astype(np.float32)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
