import numpy as np


def get_inputs():
    return [np.random.normal(size=(256, 256)).astype(np.float32)]


def forward(x):
    out = np.empty_like(x)
    for c in range(3):
        out[:, c * 64:(c + 1) * 64] = x[:, c * 64:(c + 1) * 64] + x[:, (c + 1) * 64:(c + 2) * 64]
    out[:, 192:256] = x[:, 192:256] * 2.0
    return out.astype(np.float32)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    if not isinstance(k_res, (tuple, list)):
        k_res = (k_res,)
    refs = ref if isinstance(ref, tuple) else (ref,)
    return [np.reshape(v, r.shape) for v, r in zip(k_res, refs)]
