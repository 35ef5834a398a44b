# `+=` of Tensor Engine transposes into PSUM is PE accumulation (one Transpose with acc),
# like a plain matmul; a Vector Engine transpose stays a VectorE read-modify-write.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa

INPUT_SHAPES = [(128, 128)]


@nki.jit
def kernel(a):
    out = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.shared_hbm)
    a_sb = nl.load(a)
    ident = nl.shared_identity_matrix(n=128, dtype=nl.float32)
    ident_sb = nl.load(ident)
    ps = nl.zeros((128, 128), dtype=nl.float32, buffer=nl.psum)
    ps += nisa.nc_matmul(a_sb, ident_sb, is_transpose=True)
    ps += nl.transpose(a_sb)
    ps += nisa.nc_transpose(a_sb)
    acc = nl.zeros((128, 128), dtype=nl.float32, buffer=nl.sbuf)
    acc += nisa.nc_transpose(a_sb, engine=nisa.vector_engine)
    res = nl.add(nl.copy(ps), acc)
    nl.store(out, value=res)
    return out
