import numpy as np

M = 300
N = 512


def get_inputs():
    p = np.random.normal(loc=0, scale=1.0, size=(M, N)).astype(np.float32)
    g = np.random.normal(loc=0, scale=1.0, size=(M, N)).astype(np.float32)
    m = np.random.normal(loc=0, scale=1.0, size=(M, N)).astype(np.float32)
    v = np.abs(np.random.normal(loc=0, scale=1.0, size=(M, N))).astype(np.float32)
    return [p, g, m, v]


def forward(p, g, m, v):
    m2 = 0.9 * m + 0.1 * g
    v2 = 0.999 * v + 0.001 * (g * g)
    return p - 0.001 * (m2 / (np.sqrt(v2) + 1e-08))


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
