# The newer API's dst= of nl.shared_identity_matrix is documented but not modelled: refused.
import neuronxcc.nki.language as nl
nl.shared_identity_matrix(128, dst=None, dtype=nl.float32)
nl.shared_identity_matrix(128, dst=nl.float32)
