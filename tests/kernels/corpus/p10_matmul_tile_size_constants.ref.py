import numpy as np

K, M, N = 384, 256, 1024
TOLERANCE = 1e-4


def get_inputs():
    lhsT = np.random.normal(size=(K, M)).astype(np.float32)
    rhs = np.random.normal(size=(K, N)).astype(np.float32)
    return [lhsT, rhs]


def forward(lhsT, rhs):
    return lhsT.T @ rhs


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
