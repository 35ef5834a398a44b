# xT.T @ w for fp32 xT [K, M] and w [K, 2 * 1024], K = 40 * 128 (the on-chip-pressure pair of this
# folder: each row tile loads w as two [K, 1024] halves of 160 KiB a partition, 320 KiB together
# against trn1's 176 KiB of SBUF).
import numpy as np

KT = 40
M = 256
N = 2048


def get_inputs():
    xT = np.random.normal(size=(KT * 128, M)).astype(np.float32)
    w = np.random.normal(size=(KT * 128, N)).astype(np.float32)
    return [xT, w]


def forward(xT, w):
    return np.matmul(xT.T, w)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
