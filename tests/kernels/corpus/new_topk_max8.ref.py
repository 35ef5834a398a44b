import numpy as np

ROWS, COLS = 256, 200
TOP = 16


def get_inputs():
    # distinct values per row, so the top-16 order and indices are unique
    x = np.stack([np.random.permutation(COLS) for _ in range(ROWS)]).astype(np.float32)
    x = x + np.random.normal(size=(ROWS, 1)).astype(np.float32)
    return [x.astype(np.float32)]


def forward(x):
    order = np.argsort(-x, axis=1)[:, :TOP]
    values = np.take_along_axis(x, order, axis=1)
    return values.astype(np.float32), order.astype(np.uint32)


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return list(k_res)
