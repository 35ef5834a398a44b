import numpy as np

TOLERANCE = 1e-4


def get_inputs():
    a = np.random.normal(size=(128, 128)).astype(np.float32)
    b = np.random.normal(size=(128, 128)).astype(np.float32)
    c = np.random.normal(size=(128, 256)).astype(np.float32)
    return [a, b, c]


def forward(a, b, c):
    return (a.T.copy(), np.matmul(b, c), np.matmul(a, b.T))


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
