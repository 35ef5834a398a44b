# Reference of scatter_add_rows.py: out = base; out[labels[n]] += updates[n] for every n
# (np.add.at: repeated labels all add), 1024 updates into 512 rows of 256 float32.
import numpy as np

V = 512
D = 256
N = 1024


def get_inputs():
    base = np.random.normal(loc=0, scale=1.0, size=(V, D)).astype(np.float32)
    updates = np.random.normal(loc=0, scale=1.0, size=(N, D)).astype(np.float32)
    labels = np.random.randint(0, V, size=(N, 1)).astype(np.int32)
    return [base, updates, labels]


def forward(base, updates, labels):
    out = base.copy()
    for n in range(N):  # np.add.at(out, labels[:, 0], updates), one row at a time
        out[labels[n, 0]] += updates[n]
    return out


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [np.reshape(k_res, ref.shape)]
