import numpy as np
from neuronxcc.nki import language as nl, isa
import neuronxcc.nki.language


@deco.attr(3)
def f(a, b=1, *args, c, d=2, **kw) -> int:
    """doc"""
    g = lambda x, y=2: x + y
    a, *rest = b
    t[i, 1:2, ::3, ..., None] += -x ** 2 * (y + 1) // 3 % 4 @ m
    v = [i for i in range(3) if i] + [*rest]
    w = {k: v for k, v in z.items()}, {1, 2}, {'a': 1, **kw}
    u = (x for x in y)
    q = a if not b and c or d else e
    r = 1 < x <= 2 is not None not in s
    s = f(1, *args, k=2, **kw)
    t.attr = f"{a!r:>3}"
    assert a, 'msg'
    while a:
        break
    for i, j in zip(a, b):
        continue
    if a:
        pass
    elif b:
        pass
    else:
        return
    return a, b
