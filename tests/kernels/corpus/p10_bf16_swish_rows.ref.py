import numpy as np
import ml_dtypes

N, D = 256, 384
TOLERANCE = 1e-2


def get_inputs():
    x = np.random.normal(size=(N, D)).astype(ml_dtypes.bfloat16)
    beta = np.random.uniform(0.5, 2.0, size=(1, D)).astype(ml_dtypes.bfloat16)
    return [x, beta]


def forward(x, beta):
    xf = x.astype(np.float32)
    z = xf * beta.astype(np.float32)
    return (xf / (1.0 + np.exp(-z))).astype(ml_dtypes.bfloat16)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
