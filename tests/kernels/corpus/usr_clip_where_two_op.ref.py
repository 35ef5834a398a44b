import math
import numpy as np

N, D = 256, 128
TOLERANCE = 1e-5


def get_inputs():
    x = (np.random.normal(size=(N, D)) * 2).astype(np.float32)
    lo = -(np.random.rand(N, 1) + 1.0)
    hi = np.random.rand(N, 1) + 1.0
    return [x, np.concatenate([lo, hi], axis=1).astype(np.float32)]


def forward(x, limits):
    c = np.minimum(np.maximum(x, limits[:, 0:1]), limits[:, 1:2]).astype(np.float64)
    erf = np.array([[math.erf(v / math.sqrt(2.0)) for v in row] for row in c.tolist()])
    g = 0.5 * c * (1.0 + erf)
    return np.where(np.abs(x) < 1.0, x, g).astype(np.float32)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
