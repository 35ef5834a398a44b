# Every np.* / math.* name nki-language.md lists (sections 1.2, 1.5, 13.1), one line each, as the
# references and host code use it; the .out is real numpy 1.24's (update.sh). The count on the
# last line is the numpy part of the coverage figure in docs/performance.md.
import math
import numpy as np

names = []


def show(name, *values):
    names.append(name)
    print(name, *values)


np.random.seed(5)
x = np.random.normal(loc=0, scale=1.0, size=(3, 4)).astype(np.float32)
y = np.random.normal(size=(4, 2)).astype(np.float32)
p = np.abs(x) + 0.5
show("np.random.seed", np.random.rand(2))
show("np.random.normal", x[0], x.dtype)
show("np.random.rand", np.random.rand(2, 2))
show("np.random.randn", np.random.randn(3))
show("np.random.random", np.random.random((2,)))
show("np.random.random_sample", np.random.random_sample(2))
show("np.random.randint", np.random.randint(0, 10, size=4))
show("np.random.choice", np.random.choice(6, size=3))
show("np.abs", np.abs(x[0]))
show("np.add", np.add(x, 1)[0], np.add(x, 1).dtype)
show("np.add.reduce", np.add.reduce(x, axis=1))
show("np.all", np.all(p > 0), np.all(x > 0, axis=0))
show("np.allclose", np.allclose(x, x + 1e-9), np.allclose(x, x + 1))
show("np.amax", np.amax(x, axis=1))
show("np.arange", np.arange(5), np.arange(1, 7, 2, dtype=np.float32))
show("np.arctan", np.arctan(x[0]).round(6))  # float32 atan within 1 ulp of numpy's SIMD one
show("np.bool_", np.bool_(3), np.array([0, 2], dtype=np.bool_))
show("np.broadcast_to", np.broadcast_to(x[0:1], (2, 4)))
show("np.clip", np.clip(x[0], -0.5, 0.5), np.clip(np.arange(6), 1, 4))
show("np.concatenate", np.concatenate([x[:1], x[2:]], axis=0).shape, np.concatenate([x, x], axis=1).shape)
show("np.copy", np.copy(x[0]))
show("np.divide", np.divide(x, 4)[0], np.divide(x, 4).dtype)
show("np.dtype", np.dtype(np.float32).type(0.9), np.dtype(np.uint16).type(0), np.dtype("float32"))
show("np.einsum", np.einsum("ij,jk->ik", x, y))
show("np.exp", np.exp(x[0]))
show("np.float16", np.float16(1.2), x.astype(np.float16)[0])
show("np.float32", np.float32(np.sqrt(128)), np.float32(1) / 3)
show("np.float64", np.float64(1) / 3, np.sqrt(128))
show("np.floor", np.floor(x[0] * 3))
show("np.fromfunction", np.fromfunction(lambda i, j: i * 2 + j, (2, 3)))
show("np.identity", np.identity(3, dtype=np.float32), np.identity(2, dtype=np.int8).dtype)
show("np.int32", np.int32(7) // 2, np.arange(3, dtype=np.int32).dtype)
show("np.int8", np.int8(100) + np.int8(20), np.array([1, 2], dtype=np.int8) * 3)
show("np.isclose", np.isclose(x[0], x[0] + 1e-7).tolist())
show("np.log", np.log(p[0]).round(6))  # float32 log within 1 ulp of numpy's SIMD one
show("np.log2", np.log2(p[0]))
show("np.matmul", np.matmul(x, y), (x @ y).dtype)
show("np.max", np.max(x, axis=-1, keepdims=True).ravel())
show("np.maximum", np.maximum(x[0], 0))
show("np.mean", np.mean(x, axis=-1, keepdims=True).ravel())
show("np.minimum", np.minimum(x[0], 0))
show("np.multiply", np.multiply(x[0], 0.9), np.multiply(x, 0.9).dtype)
xn = x.copy()
xn[0, 1] = np.nan
show("np.nanmean", np.nanmean(xn, axis=1))
buf = np.ndarray((2, 3), dtype=np.float32)
buf[...] = 1.5
show("np.ndarray", buf, buf.dtype)
show("np.newaxis", x[:, np.newaxis, :].shape, x[np.newaxis].shape)
show("np.ones", np.ones((2, 2), dtype=np.float32))
show("np.reciprocal", np.reciprocal(p[0]))
show("np.repeat", np.repeat(np.arange(3), 2), np.repeat(x[:, None, :], 2, axis=1).shape)
show("np.reshape", np.reshape(x, (2, 6))[1])
show("np.sign", np.sign(x[0]))
show("np.sin", np.sin(x[0]))
show("np.sqrt", np.sqrt(p[0]), np.sqrt(128))
show("np.square", np.square(x[0]))
show("np.subtract", np.subtract(1, x[0]))
show("np.sum", np.sum(x, axis=-1, keepdims=True).ravel(), np.sum(x, axis=(0, 1)))
show("np.take_along_axis", np.take_along_axis(x, np.argsort(x, axis=1), axis=1)[0])
show("np.tanh", np.tanh(x[0]).round(6))  # float32 tanh within 1 ulp of numpy's SIMD one
np.testing.assert_allclose(x, x + 1e-9, rtol=1e-5)
show("np.testing.assert_allclose", "passed")
show("np.transpose", np.transpose(x, axes=(1, 0)).shape, x.transpose(1, 0)[0])
show("np.triu_indices_from", np.triu_indices_from(np.zeros((3, 3))))
show("np.uint16", np.uint16(65535) // np.uint16(2), np.array([1], dtype=np.uint16).dtype)
show("np.uint32", np.uint32(7), np.array([2**31], dtype=np.uint32))
show("np.uint8", np.uint8(250) + np.uint8(3), np.array([3], dtype=np.uint8).dtype)
show("np.zeros", np.zeros((2, 2), dtype=np.float32))
show("np.zeros_like", np.zeros_like(x[:1]))
show("math.ceil", math.ceil(10 / 3), math.ceil(-0.5))
print("documented numpy names printed as numpy prints them:", len(names))
