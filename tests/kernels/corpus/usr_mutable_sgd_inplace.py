# An optimizer step that updates its state in place, as the nt.mutable_tensor annotation allows:
# the parameter and the velocity are kernel arguments written with nl.store and returned (the
# compiler requires a mutated argument to be returned: err_mutable_parameter_not_returned);
# hyper-parameters are float keyword defaults; nisa.scalar_tensor_tensor fuses v = mu*v + g.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.typing as nt


@nki.jit
def sgd_momentum(param: nt.mutable_tensor, grad: nt.tensor, velocity: nt.mutable_tensor,
                 lr: float = 0.05, mu: float = 0.9):
    M, N = param.shape
    P = nl.tile_size.pmax
    for t in nl.affine_range(M // P):
        rows = nl.ds(t * P, P)
        p = nl.load(param[rows, :])
        g = nl.load(grad[rows, :])
        v = nl.load(velocity[rows, :])
        v_new = nisa.scalar_tensor_tensor(data=v, op0=nl.multiply, operand0=mu, op1=nl.add, operand1=g)
        p_new = nl.subtract(p, nl.multiply(v_new, lr))
        nl.store(velocity[rows, :], value=v_new)
        nl.store(param[rows, :], value=p_new)
    return param, velocity
