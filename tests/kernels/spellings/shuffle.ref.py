# Each 32-partition quadrant of every [128, 512] row tile of x reversed along the partitions (the
# nc_stream_shuffle pair of this folder).
import numpy as np

TILES = 8


def get_inputs():
    return [np.random.normal(size=(TILES * 128, 512)).astype(np.float32)]


def forward(x):
    t = x.reshape(TILES, 4, 32, 512)[:, :, ::-1, :]
    return np.ascontiguousarray(t.reshape(TILES * 128, 512))


def transform_to_nki_inputs(inputs):
    return inputs


def transform_nki_outputs(k_res, ref):
    return [k_res]
