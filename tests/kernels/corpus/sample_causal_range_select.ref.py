import numpy as np

S = 256
TOLERANCE = 1e-5


def get_inputs():
    return [np.random.normal(size=(S, S)).astype(np.float32)]


def forward(scores):
    keep = np.tril(np.ones((S, S), dtype=bool))
    z = np.where(keep, scores, -np.inf)
    z = z - np.max(z, axis=1, keepdims=True)
    e = np.exp(z)
    return (e / np.sum(e, axis=1, keepdims=True)).astype(np.float32)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
