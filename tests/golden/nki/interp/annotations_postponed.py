"""PEP 563: with `from __future__ import annotations` annotations are strings, never evaluated,
so a name they use need not exist."""
from __future__ import annotations

import numpy as np


def scale(x: NotImported, k: int = 2) -> AlsoMissing:
    return x * k


print(scale(np.float32(1.5)))
