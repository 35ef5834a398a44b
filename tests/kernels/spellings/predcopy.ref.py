# where(x > 0.5, a.T @ b, x) for fp32 a [128, 128], b [128, 512], x [128, 512] (the predicated-copy
# pair of this folder).
import numpy as np


def get_inputs():
    a = np.random.normal(size=(128, 128)).astype(np.float32)
    b = np.random.normal(size=(128, 512)).astype(np.float32)
    x = np.random.rand(128, 512).astype(np.float32)
    return [a, b, x]


def forward(a, b, x):
    return np.where(x > 0.5, np.matmul(a.T, b), x).astype(np.float32)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
