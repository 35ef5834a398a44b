import numpy as np


def get_inputs():
    table = np.random.normal(size=(300, 48)).astype(np.float32)
    ids = np.random.randint(0, 300, size=(2, 128)).astype(np.int32)
    return [table, ids]


def forward(table, ids):
    looked = 2.0 * table[ids.reshape(-1)]
    strided = np.concatenate([np.exp(looked[r::2]) for r in range(2)])
    return looked.astype(np.float32), strided.astype(np.float32)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [np.reshape(v, r.shape) for v, r in zip(k_res, ref)]
