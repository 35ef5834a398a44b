import numpy as np

B, P, D = 3, 128, 512
TOLERANCE = 1e-5


def get_inputs():
    return [np.random.normal(size=(B, P, D)).astype(np.float32), (np.random.rand(P, 1) + 0.5).astype(np.float32)]


def forward(x, scale):
    b = np.arange(B, dtype=np.float32).reshape(B, 1, 1)
    return (np.tanh(x * scale[None, :, :]) * 2.0 + b).astype(np.float32)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
