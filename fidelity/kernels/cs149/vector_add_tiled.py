# Stanford CS149 Asst 4 (2025), part 1, vector_add_tiled (Trn2, FP32).
# Source: xaviergonzalez/asst4-trainium2@d1552616 part1/kernels.py and README.md (the
# assignment's code inline), measured in writeup.md; trainium-measurements.md §1.9. The student
# edited ROW_CHUNK between runs (1 and 128); the manifest sets it the same way (`constants`).
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.compiler.skip_middle_end_transformations
@nki.jit
def vector_add_tiled(a_vec, b_vec):

    # Get the total number of vector rows
    M = a_vec.shape[0]

    # ROW_CHUNK rows per iteration
    ROW_CHUNK = 1

    # Allocate space for the output vector in HBM
    out = nl.ndarray(shape=a_vec.shape, dtype=a_vec.dtype, buffer=nl.hbm)

    # Loop over the total number of chunks, we can use affine_range
    # because there are no loop-carried dependencies
    for m in nl.affine_range((M // ROW_CHUNK)):

        # Allocate row-chunk sized tiles for the input vectors
        a_tile = nl.ndarray((ROW_CHUNK, 1), dtype=a_vec.dtype, buffer=nl.sbuf)
        b_tile = nl.ndarray((ROW_CHUNK, 1), dtype=b_vec.dtype, buffer=nl.sbuf)

        # Load a chunk of rows
        nisa.dma_copy(dst=a_tile, src=a_vec[m * ROW_CHUNK : (m + 1) * ROW_CHUNK])
        nisa.dma_copy(dst=b_tile, src=b_vec[m * ROW_CHUNK : (m + 1) * ROW_CHUNK])

        # Add the row chunks together (b as the per-partition scalar operand)
        res = nisa.tensor_scalar(a_tile, nl.add, b_tile)

        # Store the result chunk into HBM
        nisa.dma_copy(dst=out[m * ROW_CHUNK : (m + 1) * ROW_CHUNK], src=res)

    return out
