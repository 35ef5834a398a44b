import numpy as np

C, H, W = 96, 6, 10


def get_inputs():
    return [np.random.normal(size=(C, H, W)).astype(np.float32)]


def forward(x):
    wide = np.zeros((C, H, 2 * W - 1), dtype=np.float32)
    wide[:, :, 0::2] = x
    wide[:, :, 1::2] = (x[:, :, :-1] + x[:, :, 1:]) * np.float32(0.5)
    out = np.zeros((C, 2 * H - 1, 2 * W - 1), dtype=np.float32)
    out[:, 0::2, :] = wide
    out[:, 1::2, :] = (wide[:, :-1, :] + wide[:, 1:, :]) * np.float32(0.5)
    return out


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
