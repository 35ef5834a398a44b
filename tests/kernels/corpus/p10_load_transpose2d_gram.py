import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def gram_blocks(a, b):
    # G = a.T @ b for row-major a (R, C1) and b (R, C2). The tutorial's load_transpose2d
    # brings each (C1-block, R-block) of a already transposed into SBUF; nl.matmul with
    # transpose_x=False then needs it as x = (M, K) = (C1, R) -- exactly that layout.
    R, C1 = a.shape
    _, C2 = b.shape
    out = nl.ndarray((C1, C2), dtype=a.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(C1 // 128):
        acc = nl.zeros((128, C2), dtype=nl.float32, buffer=nl.psum)
        for r in nl.affine_range(R // 128):
            aT = nl.load_transpose2d(a[r * 128:(r + 1) * 128, i * 128:(i + 1) * 128])
            bt = nl.load(b[r * 128:(r + 1) * 128, 0:C2])
            acc += nl.matmul(aT, bt, transpose_x=False)
        nl.store(out[i * 128:(i + 1) * 128, 0:C2], value=nl.copy(acc))
    return out
