import numpy as np

B, S, D = 3, 300, 64


def get_inputs():
    x = np.random.normal(size=(B, S, D)).astype(np.float32)
    pos = np.random.normal(size=(S, D)).astype(np.float32)
    return [x, pos]


def forward(x, pos):
    return x + pos[None, :, :]


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
