{
 "arch": "trn1",
 "engine_busy_ms": {
  "dma": 0.1927529411764706,
  "dma_load": 0.07710117647058823,
  "dma_store": 0.11565176470588234,
  "dve": 0.03675
 },
 "gpsimd_engine_active_time_percent": 0.0,
 "hardware_flops": 0,
 "hbm_read_bytes": 20971520,
 "hbm_write_bytes": 31457280,
 "hfu_estimated_percent": 0.0,
 "instructions": 6,
 "latency": 0.2150279411764706,
 "mm_arithmetic_intensity": 0.0,
 "peak_flops_bandwidth_ratio": 223.78146341463415,
 "psum_read_bytes": 0,
 "psum_write_bytes": 0,
 "sbuf_read_bytes": 31457280,
 "sbuf_write_bytes": 41943040,
 "scalar_engine_active_time_percent": 0.0,
 "spill_reload_bytes": 0,
 "spill_save_bytes": 0,
 "transpose_flops": 0,
 "vector_engine_active_time_percent": 0.1709080215293498
}
