# numpy functions that references by other authors use beyond the NKIBench subset: var/std,
# cumsum/cumprod, argmax/argmin, round, tile, hstack/vstack, stack, flip, outer, take, take_along_axis,
# moveaxis, fmod, finfo/iinfo, and the ndarray methods of the same names.
import numpy as np

x = np.arange(12, dtype=np.float32).reshape(3, 4) * 0.75 - 2.0
print(np.var(x), np.var(x, axis=1), np.std(x, axis=0, keepdims=True), np.var(x, ddof=1).dtype)
print(x.var(axis=1), x.std(), np.std(np.arange(5)), np.var(np.arange(5)).dtype)
print(np.cumsum(x, axis=1), np.cumsum(np.arange(5)), np.cumprod(np.array([1.5, 2.0, 3.0], dtype=np.float32)))
print(x.cumsum(0).dtype, np.cumsum(np.array([True, True, False])), np.cumsum(x))
y = np.array([[3.0, 1.0, 3.0], [0.5, 2.0, -1.0]], dtype=np.float32)
print(np.argmax(y), np.argmax(y, axis=1), np.argmin(y, axis=0), y.argmax(axis=0), np.argmax(y, axis=1, keepdims=True).shape)
print(np.round(np.array([0.5, 1.5, 2.5, -0.5, 1.234567], dtype=np.float32)), np.round(x, 1), np.around(np.array([12.5, 137.0]), -1))
print(np.tile(np.array([1, 2]), 3), np.tile(y, (2, 1)).shape, np.tile(np.array([[1, 2]]), (2, 2)))
print(np.hstack([y, y]).shape, np.vstack([y, y]).shape, np.hstack([np.arange(2), np.arange(3)]), np.vstack([np.arange(3), np.arange(3)]))
print(np.stack([y, 2 * y]).shape, np.stack([y, y], axis=1).shape, np.stack([y, y], axis=-1)[1, 2])
print(np.flip(y), np.flip(y, axis=1), np.flip(np.arange(4)))
print(np.outer(np.arange(3), np.array([1.0, 2.0], dtype=np.float32)))
idx = np.array([[2, 0], [1, 1]])
print(np.take_along_axis(y, idx, axis=1), np.take_along_axis(y, np.argmax(y, axis=1)[:, None], axis=1))
print(np.take(y, [2, 0]), np.take(y, idx, axis=1), np.take(y, np.array([1, 1, 0]), axis=0), np.take(np.arange(10), [[1, 2], [3, -1]]))
print(np.take(y, np.array([0, 2]), axis=-1).dtype, np.take(y, 4), np.take(np.arange(6).reshape(1, 2, 3), [2, 0], axis=2).shape)
print(np.moveaxis(np.zeros((2, 3, 4)), 0, -1).shape, np.moveaxis(np.zeros((2, 3, 4)), -1, 0).shape)
print(np.fmod(np.array([-3.5, 3.5, -7.0]), 2.0), np.remainder(np.array([-3.5, 3.5]), 2.0), np.fmod(np.array([-7, 7]), 3))
print(np.finfo(np.float32).max, np.finfo(np.float32).min, np.finfo(np.float32).eps, np.finfo(np.float16).max == 65504, np.finfo(np.float64).bits)
print(np.iinfo(np.int32).max, np.iinfo(np.int8).min, np.iinfo(np.uint16).max)
print(np.full((2, 2), np.finfo(np.float32).min).dtype, -np.finfo(np.float32).max == np.finfo(np.float32).min)
