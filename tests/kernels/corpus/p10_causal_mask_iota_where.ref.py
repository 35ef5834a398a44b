import numpy as np

S = 256


def get_inputs():
    return [np.random.normal(size=(S, S)).astype(np.float32)]


def forward(scores):
    i = np.arange(S)[:, None]
    j = np.arange(S)[None, :]
    masked = np.where(j <= i, scores, np.float32(-30000.0))
    e = np.exp(masked - np.max(masked, axis=1, keepdims=True))
    return e / np.sum(e, axis=1, keepdims=True)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
