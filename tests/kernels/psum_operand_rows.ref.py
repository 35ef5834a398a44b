# psum_operand_rows_api.py's numpy reference: (M/128, 128, K/128, 128) @ (K/128, 128, N).
# `accelopt eval --reference tests/kernels/psum_operand_rows.ref.py --kernel tests/kernels/psum_operand_rows_api.py`.
import numpy as np


def get_inputs():
    lhs = np.random.normal(size=(2, 128, 2, 128)).astype(np.float32)
    rhs = np.random.normal(size=(2, 128, 1024)).astype(np.float32)
    return [lhs, rhs]


def forward(lhs, rhs):
    a = lhs.reshape(256, 256)
    b = rhs.reshape(256, 1024)
    return (a @ b).reshape(2, 128, 1024)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
