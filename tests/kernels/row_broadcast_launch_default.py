# Legacy API, an SPMD port: the wrapper launches one program per 128-channel block and passes the
# arrays only; the launched kernel takes its chunk width as a parameter with a default
# (`chunk=1024`: 4 KiB fp32 rows per partition, wider than a PSUM bank) and broadcasts each row of
# w onto the partitions on chip (`.broadcast_to`). No default of the wrapper, no module constant:
# broadcast_on_chip (and free_size) narrow the launched kernel's default, which no call passes.
# out[c, m] = sum_s x[c, m] * w[s, m].
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def _rows(x, w, chunk=1024):
    pid = nl.program_id(0)
    width = x.shape[1]
    steps = w.shape[0]
    out = nl.ndarray((x.shape[0], width), dtype=x.dtype, buffer=nl.shared_hbm)
    rows = nl.ds(pid * 128, 128)
    for j in nl.affine_range(width // chunk):
        cols = nl.ds(j * chunk, chunk)
        x_t = nl.load(x[rows, cols])
        acc = nl.zeros((128, chunk), dtype=nl.float32, buffer=nl.sbuf)
        for s in nl.sequential_range(steps):
            w_row = nl.load(w[s:s + 1, cols]).broadcast_to((128, chunk))
            acc += nl.multiply(x_t, w_row)
        nl.store(out[rows, cols], value=acc)
    return out


def kernel(x, w):
    return _rows[x.shape[0] // 128](x, w)
