# A baremetal kernel with type annotations everywhere: parameters annotated with nt.tensor[...]
# shapes and nt.mutable_tensor for the output argument, a float parameter with a default, `-> None`,
# annotated local assignments (`rows: int = ...`, `t: nt.tensor = ...`), a module constant with an
# annotation, and decorator arguments (save_neff_name, additional_compile_opt).
import numpy as np
from neuronxcc import nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.typing as nt

TILE: int = 128


@nki.baremetal(save_neff_name="swish.neff", additional_compile_opt="--disable-dge")
def kernel(x: nt.tensor[256, 512], out: nt.mutable_tensor, alpha: float = 1.5) -> None:
    """out = x * sigmoid(alpha * x), row tile by row tile."""
    rows: int = x.shape[0]
    cols: int = x.shape[1]
    for i in nl.affine_range(rows // TILE):
        t: nt.tensor = nl.load(x[i * TILE:(i + 1) * TILE, 0:cols])
        gate: nt.tensor = nl.sigmoid(nl.multiply(t, alpha))
        nl.store(out[i * TILE:(i + 1) * TILE, 0:cols], value=nl.multiply(t, gate))
