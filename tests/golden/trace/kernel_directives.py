# nki.compiler directives become Kernel records: decorators when the kernel is called, a `with`
# block and a loop's directives= from where they appear (each record repeats the earlier ones).
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.compiler as ncc

INPUT_SHAPES = [(128, 64)]


@nki.compiler.skip_middle_end_transformations
@nki.jit
def kernel(a):
    out = nl.ndarray((128, 64), dtype=np.float32, buffer=nl.shared_hbm)
    with ncc.no_reorder():
        t = nl.load(a)
    for i in nl.sequential_range(2, directives=ncc.multi_buffer(2)):
        t = nl.add(t, 1.0)
    nl.store(out, value=t)
    return out
