{
 "arch": "trn1",
 "engine_busy_ms": {
  "act": 0.0016057142857142856,
  "dma": 0.006142080599812558,
  "dma_load": 0.003071040299906279,
  "dma_store": 0.003071040299906279
 },
 "gpsimd_engine_active_time_percent": 0.0,
 "hardware_flops": 0,
 "hbm_read_bytes": 1048576,
 "hbm_write_bytes": 1048576,
 "hfu_estimated_percent": 0.0,
 "instructions": 6,
 "latency": 0.008080846164145132,
 "mm_arithmetic_intensity": 0.0,
 "peak_flops_bandwidth_ratio": 223.78146341463415,
 "psum_read_bytes": 0,
 "psum_write_bytes": 0,
 "sbuf_read_bytes": 2097152,
 "sbuf_write_bytes": 2097152,
 "scalar_engine_active_time_percent": 0.1987062063919581,
 "spill_reload_bytes": 0,
 "spill_save_bytes": 0,
 "transpose_flops": 0,
 "vector_engine_active_time_percent": 0.0
}
