# Packed-sequence bookkeeping as a samples-style kernel: the segment ids of a packed batch
# (one partition) go through nisa.sequence_bounds, which gives every token the start and end of
# its segment; the kernel then derives each token's position inside its segment and the
# segment's length with plain Vector Engine arithmetic and an iota of token positions.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


@nki.jit
def segment_positions(segment_ids):
    _, n = segment_ids.shape
    out = nl.ndarray((2, n), dtype=nl.float32, buffer=nl.shared_hbm)
    ids = nl.load(segment_ids)
    bounds = nisa.sequence_bounds(segment_ids=ids, dtype=nl.float32)
    pos = nisa.iota(nl.arange(n)[None, :], dtype=nl.float32)
    start = bounds[0:1, 0, 0:n]
    end = bounds[0:1, 1, 0:n]
    offset = nl.subtract(pos, start)
    length = nl.subtract(end, start)
    nl.store(out[0:1, 0:n], value=offset)
    nl.store(out[1:2, 0:n], value=length)
    return out


kernel = segment_positions
