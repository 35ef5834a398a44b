# bf16 inputs, fp32 accumulation: a gated projection where the matmul operands are bf16 tiles,
# the products accumulate in an fp32 PSUM tile over the contraction blocks (`acc +=` on
# nisa.nc_matmul), the fp32 bias row is broadcast over the partitions, and the gate multiplies a
# bf16 tile with an fp32 tile (numpy promotion: the product is fp32). The store rounds to bf16.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(lhsT, rhs, gate, bias):
    K, M = lhsT.shape
    _, N = rhs.shape
    out = nl.ndarray((M, N), dtype=nl.bfloat16, buffer=nl.shared_hbm)
    acc = nl.zeros((M, N), dtype=nl.float32, buffer=nl.psum)
    for k in nl.affine_range(K // 128):
        a = nl.load(lhsT[k * 128:(k + 1) * 128, :])
        b = nl.load(rhs[k * 128:(k + 1) * 128, :])
        acc += nisa.nc_matmul(a, b)
    bias_row = nl.load(bias)
    s = nl.add(acc, bias_row.broadcast_to((M, N)))
    g = nl.load(gate)
    y = nl.multiply(g, nl.sigmoid(s))
    assert y.dtype == nl.float32 and g.dtype == nl.bfloat16
    nl.store(out, value=y)
    return out
