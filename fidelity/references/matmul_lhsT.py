# result = lhsT.T @ rhs with lhsT [K, M] and rhs [K, N] (the matmul ladders).
# BAREMETAL = 1: the kernel takes the output as a third argument (the tutorial's baremetal form).
import numpy as np

K = 1024
M = 2048
N = 1024
BAREMETAL = 0


def get_inputs():
    lhsT = np.random.normal(loc=0, scale=1.0, size=(K, M)).astype(np.float32)
    rhs = np.random.normal(loc=0, scale=1.0, size=(K, N)).astype(np.float32)
    return [lhsT, rhs]


def forward(lhsT, rhs):
    return np.matmul(np.transpose(lhsT, (1, 0)), rhs)


def transform_to_nki_inputs(inputs):
    if BAREMETAL:
        return [inputs[0], inputs[1], np.zeros((M, N), dtype=np.float32)]
    return inputs


def transform_nki_outputs(k_res, ref):
    if not isinstance(k_res, tuple):
        k_res = (k_res,)
    return [np.reshape(k_res[0], ref.shape)]
