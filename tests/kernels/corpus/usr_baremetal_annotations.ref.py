import numpy as np


def get_inputs():
    return [np.random.normal(size=(256, 512)).astype(np.float32)]


def forward(x):
    return (x / (1.0 + np.exp(-1.5 * x))).astype(np.float32)


def transform_to_nki_inputs(inputs):
    # The kernel writes its result into the second argument.
    return [inputs[0], np.zeros((256, 512), dtype=np.float32)]


def transform_nki_outputs(k_res, ref):
    if not isinstance(k_res, tuple):
        k_res = (k_res,)
    return [np.reshape(v, ref.shape) for v in k_res]
