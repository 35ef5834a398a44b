# CS149 assignment style: vector addition in three versions chosen by a Python flag -- one load
# of a whole 1-D vector (a partition vector), 128-element chunks, and a reshaped HBM view
# streamed in (128, FREE_DIM) tiles; outputs in nl.hbm.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def vector_add_naive(a_vec, b_vec):
    # Allocate space for the output vector in HBM
    out = nl.ndarray(shape=a_vec.shape, dtype=a_vec.dtype, buffer=nl.hbm)

    # Load the input vectors from HBM into variables stored in SBUF
    a = nl.load(a_vec)
    b = nl.load(b_vec)

    # Add the input vectors
    res = nl.add(a, b)

    # Store the result into HBM
    nl.store(out, value=res)

    return out


@nki.jit
def vector_add_tiled(a_vec, b_vec):
    # Get the total number of vector rows
    M = a_vec.shape[0]

    # TODO: You should modify this variable for Step 1
    ROW_CHUNK = 128

    # Allocate space for the output vector in HBM
    out = nl.ndarray(shape=a_vec.shape, dtype=a_vec.dtype, buffer=nl.hbm)

    # Loop over the total number of chunks, we can use affine_range
    # because there are no loop-carried dependencies
    for m in nl.affine_range(M // ROW_CHUNK):

        # Allocate row-chunk sized tiles for the input vectors
        a_tile = nl.ndarray((ROW_CHUNK, 1), dtype=a_vec.dtype, buffer=nl.sbuf)
        b_tile = nl.ndarray((ROW_CHUNK, 1), dtype=b_vec.dtype, buffer=nl.sbuf)

        # Load a chunk of rows
        a_tile[...] = nl.load(a_vec[m * ROW_CHUNK : (m + 1) * ROW_CHUNK])
        b_tile[...] = nl.load(b_vec[m * ROW_CHUNK : (m + 1) * ROW_CHUNK])

        # Add the row chunks together
        res = nl.add(a_tile, b_tile)

        # Store the result chunk into HBM
        nl.store(out[m * ROW_CHUNK : (m + 1) * ROW_CHUNK], value=res)

    return out


@nki.jit
def vector_add_stream(a_vec, b_vec):
    # Get the total number of vector rows
    M = a_vec.shape[0]

    # TODO: You should modify this variable for Step 2a
    FREE_DIM = 4

    # The maximum size of our Partition Dimension
    PARTITION_DIM = 128

    # Reshape the the input vectors
    a_vec_re = a_vec.reshape((M // FREE_DIM, FREE_DIM))
    b_vec_re = b_vec.reshape((M // FREE_DIM, FREE_DIM))

    # Allocate space for the reshaped output vector in HBM
    out = nl.ndarray(shape=a_vec_re.shape, dtype=a_vec_re.dtype, buffer=nl.hbm)

    # Loop over the total number of tiles
    for m in nl.affine_range(M // (PARTITION_DIM * FREE_DIM)):

        # Allocate space for a reshaped tile
        a_tile = nl.ndarray((PARTITION_DIM, FREE_DIM), dtype=a_vec.dtype, buffer=nl.sbuf)
        b_tile = nl.ndarray((PARTITION_DIM, FREE_DIM), dtype=a_vec.dtype, buffer=nl.sbuf)

        # Load the input tiles
        a_tile = nl.load(a_vec_re[m * PARTITION_DIM : (m + 1) * PARTITION_DIM])
        b_tile = nl.load(b_vec_re[m * PARTITION_DIM : (m + 1) * PARTITION_DIM])

        # Add the tiles together
        res = nl.add(a_tile, b_tile)

        # Store the result tile into HBM
        nl.store(out[m * PARTITION_DIM : (m + 1) * PARTITION_DIM], value=res)

    # Reshape the output vector into its original shape
    out = out.reshape(a_vec.shape)

    return out


def kernel(a_vec, b_vec, c_vec, d_vec):
    first = vector_add_naive(a_vec[0:128], b_vec[0:128])
    tiled = vector_add_tiled(a_vec, b_vec)
    streamed = vector_add_stream(c_vec, d_vec)
    return first, tiled, streamed
