import numpy as np


def get_inputs():
    return [np.random.normal(size=(128, 256)).astype(np.float32)]


def forward(x):
    p = np.arange(128)[:, None]
    mx = np.max(x, axis=1, keepdims=True)
    sm = np.sum(x, axis=1, keepdims=True)
    c0 = np.where(p < 64, mx, np.float32(0.0))
    c1 = np.where((p >= 32) & (p < 96), np.exp(np.float32(0.01) * sm), np.float32(0.0))
    c2 = np.where(2 * p + 1 > 200, 2.0 * mx, np.float32(0.0))
    return np.concatenate([c0, c1, c2], axis=1).astype(np.float32)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    if not isinstance(k_res, tuple):
        k_res = (k_res,)
    refs = ref if isinstance(ref, tuple) else (ref,)
    outputs = []
    for v, r in zip(k_res, refs):
        if hasattr(r, "shape"):
            outputs.append(np.reshape(v, r.shape))
        else:
            outputs.append(v)
    return outputs
