# A numerical scientist's elementwise update (session 46, found on an outside author's kernels):
# Fortran loop order (column panels outer, row blocks inner), 1-based `range` counters, scratch
# arrays declared once at the top and reused by every iteration, and the last row block cut
# (`nr = min(nprow, mrow - r0)`) and accessed as `tw[0:nr, :]`: a ragged extent, not a slot.
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def kernel(theta, grad):
    mrow, ncol = theta.shape
    BETA = np.float32(0.9)
    STEP = np.float32(0.01)
    nprow = 128
    ncb = 512
    nrblk = (mrow + nprow - 1) // nprow
    ncpan = ncol // ncb
    theta_new = nl.ndarray((mrow, ncol), dtype=nl.float32, buffer=nl.shared_hbm)

    # ---- scratch arrays ----
    tw = nl.ndarray((nprow, ncb), dtype=nl.float32, buffer=nl.sbuf)
    gw = nl.ndarray((nprow, ncb), dtype=nl.float32, buffer=nl.sbuf)
    upd = nl.ndarray((nprow, ncb), dtype=nl.float32, buffer=nl.sbuf)

    for jc in range(1, ncpan + 1):
        c0 = (jc - 1) * ncb
        for jb in range(1, nrblk + 1):
            r0 = (jb - 1) * nprow
            nr = min(nprow, mrow - r0)
            # ---- phase 1: load ----
            tw[0:nr, :] = nl.load(theta[r0:r0 + nr, c0:c0 + ncb], dtype=nl.float32)
            gw[0:nr, :] = nl.load(grad[r0:r0 + nr, c0:c0 + ncb], dtype=nl.float32)
            # ---- phase 2: update ----
            upd[0:nr, :] = nl.subtract(nl.multiply(tw[0:nr, :], BETA), nl.multiply(gw[0:nr, :], STEP))
            nl.store(theta_new[r0:r0 + nr, c0:c0 + ncb], value=upd[0:nr, :])

    return theta_new
