# The newer API's axis= of nl.gather_flattened is documented but not modelled: refused, not ignored.
import neuronxcc.nki.language as nl
nl.gather_flattened(None, None, axis=1)
