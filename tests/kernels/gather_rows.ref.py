# Reference of the gather kernels (gather_rows.py, gather_rows_ap.py): an embedding lookup of
# 4096 labels into a 8192 x 512 float32 table (2 KiB rows).
import numpy as np

V = 8192
D = 512
N = 4096


def get_inputs():
    table = np.random.normal(loc=0, scale=1.0, size=(V, D)).astype(np.float32)
    labels = np.random.randint(0, V, size=(N, 1)).astype(np.int32)
    return [table, labels]


def forward(table, labels):
    return table[labels[:, 0]]


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [np.reshape(k_res, ref.shape)]
