{
 "arch": "trn1",
 "dma_active_time_percent": 0.8253087813215518,
 "engine_busy_ms": {
  "act": 0.0017485714285714288,
  "dma": 0.007742117647058823,
  "dma_load": 0.0038710588235294115,
  "dma_store": 0.0038710588235294115
 },
 "gpsimd_engine_active_time_percent": 0.0,
 "hardware_flops": 0,
 "hbm_read_bytes": 1048576,
 "hbm_write_bytes": 1048576,
 "hfu_estimated_percent": 0.0,
 "instructions": 6,
 "latency": 0.009380873949579833,
 "mm_arithmetic_intensity": 0.0,
 "peak_flops_bandwidth_ratio": 223.78146341463415,
 "psum_read_bytes": 0,
 "psum_write_bytes": 0,
 "sbuf_read_bytes": 1056768,
 "sbuf_write_bytes": 1056768,
 "scalar_engine_active_time_percent": 0.18639749750072562,
 "spill_reload_bytes": 0,
 "spill_save_bytes": 0,
 "tensor_engine_active_time_percent": 0.0,
 "transpose_flops": 0,
 "vector_engine_active_time_percent": 0.0
}
