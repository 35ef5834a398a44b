# Annotations run their names when the def runs (Python 3.10 semantics): every name below
# exists, so each def succeeds; what the annotation builds is not used. A module that starts with
# `from __future__ import annotations` postpones them (annotations_postponed.py).
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.typing as nt
from typing import Optional, Tuple

Shape = tuple


@nki.jit
def axpy(y: nt.mutable_tensor, x: nt.tensor[4, 4], a: float = 2.0) -> nki.tensor:
    nl.store(y, nl.add(nl.load(y), nl.multiply(nl.load(x), a)))
    return y


def tile_shape(rows: int, cols: "int") -> Tuple[int, int]:
    return (rows, cols)


def first(xs: list, default: Optional[int] = None) -> Shape:
    return (xs[0] if xs else default,)


class Config:
    def __init__(self, rows: int, dtype: np.dtype = np.float32) -> None:
        self.rows = rows


y = axpy(np.ones((4, 4), dtype=np.float32), np.full((4, 4), 3.0, dtype=np.float32))
print(y[0])
print(tile_shape(128, 512), first([]), first([7]), Config(4).rows)
