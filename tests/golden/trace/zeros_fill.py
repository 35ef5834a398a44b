# nl.zeros fills one tile per Memset (one record per block, each within a tile);
# lazy_initialization=True emits no Memset (the first matmul write initialises the bank).
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa

INPUT_SHAPES = [(128, 128), (128, 512)]


@nki.jit
def kernel(a, b):
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    blocks = nl.zeros((3, nl.par_dim(128), 64), dtype=nl.float32, buffer=nl.sbuf)
    ps_blocks = nl.zeros((2, nl.par_dim(128), 512), dtype=nl.float32, buffer=nl.psum)
    plain = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.psum)
    lazy = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.psum, lazy_initialization=True)
    a_sb = nl.load(a)
    b_sb = nl.load(b)
    lazy += nisa.nc_matmul(a_sb, b_sb)
    nl.store(out, value=nl.copy(lazy))
    return out
