# P @ V with P transposed four 128-column blocks at a time into one PSUM tile (a loop of
# transposes), copied out into one of two rotating SBUF slots (`pt = p_slots[b % 2]`), then four
# matmuls reading the slot: the legacy API. x (128, 2048) holds P, v (2048, 64).
# pipeline_prep splits `for b` after the copy: the copies land in a buffer with one slot per
# iteration (the rotating list cannot hold them all), and the Tensor Engine runs the transposes
# back to back instead of waiting for each group's copy out of PSUM before its matmuls.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x, v):
    out = nl.ndarray((128, 64), dtype=x.dtype, buffer=nl.shared_hbm)
    p_rows = nl.load(x)
    v_blocks = nl.ndarray((128, 16, 64), dtype=v.dtype, buffer=nl.sbuf)
    for t in nl.affine_range(16):
        v_blocks[:, t, :] = nl.load(v[t * 128:(t + 1) * 128, :])
    p_slots = [nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf) for _ in range(2)]
    acc = nl.zeros((128, 64), dtype=nl.float32, buffer=nl.psum)
    for b in nl.affine_range(4):
        tp = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum)
        for i in nl.affine_range(4):
            tp[:, i * 128:(i + 1) * 128] = nisa.nc_transpose(p_rows[:, (b * 4 + i) * 128:(b * 4 + i + 1) * 128])
        pt = p_slots[b % 2]
        pt[...] = nl.copy(tp)
        for i in nl.affine_range(4):
            acc += nisa.nc_matmul(pt[:, i * 128:(i + 1) * 128], v_blocks[:, b * 4 + i, :])
    res = nl.copy(acc, dtype=x.dtype)
    nl.store(out, value=res)
    return out
