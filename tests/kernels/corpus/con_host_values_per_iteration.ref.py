import numpy as np


def get_inputs():
    return [np.random.normal(size=(384, 96)).astype(np.float32), np.random.normal(size=(384, 96)).astype(np.float32)]


def forward(a, b):
    out = a.copy()
    for r in range(3):
        out[r * 128:(r + 1) * 128] += float(r + 1)
    acc = a[0:128] + b[0:128] + 0.5 * a[0:128] - b[0:128]
    mix = np.minimum(np.maximum(acc, 0.25), 1.25)
    return out.astype(np.float32), mix.astype(np.float32)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [np.reshape(v, r.shape) for v, r in zip(k_res, ref)]
