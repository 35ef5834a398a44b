# A kernel choosing its code by the NeuronCore generation (nisa.get_nc_version() against
# nisa.nc_version.gen3, nki-language.md 8.5): the interpreter answers with the simulated target's.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x):
    M, N = x.shape
    out = nl.ndarray((M, N), dtype=x.dtype, buffer=nl.shared_hbm)
    gen = nisa.get_nc_version()
    newer = gen >= nisa.nc_version.gen3
    for r in nl.affine_range(M // 128):
        t = nl.load(x[r * 128:(r + 1) * 128, :])
        if newer:
            y = nisa.activation(op=nl.exp, data=t, scale=1.0)
        else:
            y = nl.exp(t)
        nl.store(out[r * 128:(r + 1) * 128, :], value=nl.multiply(y, float(gen)))
    return out
