# The MX packed formats (four values per element, block scales) belong to trn3's nc_matmul_mx.
import nki.language as nl

t = nl.ndarray((128, 64), dtype=nl.float8_e4m3fn_x4, buffer=nl.sbuf)
