# The TE tile-size micro-benchmark: one stationary [128, 128] and one moving [128, 512] tile.
# MIXED = 0: 2048 full matmuls accumulated; MIXED = 1: four sections of 512 (M=32, N=64, K=32, full).
import numpy as np

MIXED = 0


def get_inputs():
    s = np.random.normal(loc=0, scale=1.0, size=(128, 128)).astype(np.float32)
    m = np.random.normal(loc=0, scale=1.0, size=(128, 512)).astype(np.float32)
    return [s, m]


def forward(s, m):
    st = np.transpose(s, (1, 0))
    if not MIXED:
        return np.matmul(st, m) * np.float32(2048)
    return (np.matmul(st[0:32, :], m) * np.float32(512),
            np.matmul(st, m[:, 0:64]) * np.float32(512),
            np.matmul(st[:, 0:32], m[0:32, :]) * np.float32(512),
            np.matmul(st, m) * np.float32(512))


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    if not isinstance(k_res, tuple):
        k_res = (k_res,)
    refs = ref if isinstance(ref, tuple) else (ref,)
    return [np.reshape(v, r.shape) for v, r in zip(k_res, refs)]
