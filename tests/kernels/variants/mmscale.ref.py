# (xT.T @ y_i) * c for NT column blocks of y: xT [128, 128], y [128, NT * 512], c [128, NT * 512],
# bf16 operands, fp32 result (the PSUM-operand pair of this folder).
import numpy as np
import ml_dtypes

NT = 8


def get_inputs():
    xT = np.random.normal(size=(128, 128)).astype(ml_dtypes.bfloat16)
    y = np.random.normal(size=(128, NT * 512)).astype(ml_dtypes.bfloat16)
    c = np.random.normal(size=(128, NT * 512)).astype(ml_dtypes.bfloat16)
    return [xT, y, c]


def forward(xT, y, c):
    p = xT.astype(np.float32).T @ y.astype(np.float32)
    return (p * c.astype(np.float32)).astype(np.float32)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
