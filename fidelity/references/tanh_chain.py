# CHAIN dependent tanh activations on a [128, 1] tile.
import numpy as np

CHAIN = 4096


def get_inputs():
    x = np.random.normal(loc=0, scale=1.0, size=(128, 1)).astype(np.float32)
    return [x]


def forward(x):
    y = x
    for i in range(CHAIN):
        y = np.tanh(y)
    return y


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    if not isinstance(k_res, tuple):
        k_res = (k_res,)
    return [np.reshape(k_res[0], ref.shape)]
