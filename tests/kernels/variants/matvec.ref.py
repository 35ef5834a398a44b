# V.T @ AT for AT [128 (K), M] and V [128 (K), NV] (bf16 operands, fp32 result [NV, M] = (A @ V).T):
# a matrix against a few vectors, the stationary-operand pair of this folder.
import numpy as np
import ml_dtypes

M = 2048
NV = 4


def get_inputs():
    at = np.random.normal(size=(128, M)).astype(ml_dtypes.bfloat16)
    v = np.random.normal(size=(128, NV)).astype(ml_dtypes.bfloat16)
    return [at, v]


def forward(at, v):
    return (v.astype(np.float32).T @ at.astype(np.float32)).astype(np.float32)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
