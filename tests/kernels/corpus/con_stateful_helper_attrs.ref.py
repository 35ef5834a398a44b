import numpy as np


def get_inputs():
    return [np.random.normal(size=(512, 64)).astype(np.float32)]


def forward(x):
    s = np.repeat(np.arange(1, 5, dtype=np.float32), 128).reshape(512, 1)
    return (x * s).astype(np.float32)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    if not isinstance(k_res, (tuple, list)):
        k_res = (k_res,)
    refs = ref if isinstance(ref, tuple) else (ref,)
    return [np.reshape(v, r.shape) for v, r in zip(k_res, refs)]
