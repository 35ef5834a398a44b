# Instruction labels spelled from the loop variables (`name=f"row{i}_exp"`), as profiling-minded
# authors write them: a label changes no value, so the form leaves it out.
import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


@nki.jit
def kernel(x, bias):
    rows, cols = x.shape
    out = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(rows // 128):
        t = nl.load(x[i * 128:(i + 1) * 128, :])
        b = nl.load(bias[i * 128:(i + 1) * 128, :])
        e = nisa.activation(op=nl.exp, data=t, bias=b, scale=0.5, name=f"row{i}_exp")
        s = nisa.tensor_scalar(data=e, op0=nl.multiply, operand0=2.0, name=f"row{i}_scale")
        nl.store(out[i * 128:(i + 1) * 128, :], value=s)
    return out
