{
 "arch": "trn1",
 "dma_active_time_percent": 0.0,
 "engine_busy_ms": {
  "pe": 0.00018285714285714286
 },
 "gpsimd_engine_active_time_percent": 0.0,
 "hardware_flops": 16777216,
 "hbm_read_bytes": 0,
 "hbm_write_bytes": 0,
 "hfu_estimated_percent": 0.8888888888888887,
 "instructions": 1,
 "latency": 0.00020571428571428572,
 "mm_arithmetic_intensity": 0.0,
 "peak_flops_bandwidth_ratio": 223.78146341463415,
 "psum_read_bytes": 0,
 "psum_write_bytes": 2048,
 "sbuf_read_bytes": 1280,
 "sbuf_space_wait_ms": 0.0,
 "sbuf_write_bytes": 0,
 "scalar_engine_active_time_percent": 0.0,
 "spill_reload_bytes": 0,
 "spill_save_bytes": 0,
 "tensor_engine_active_time_percent": 0.8888888888888888,
 "transpose_flops": 0,
 "vector_engine_active_time_percent": 0.0
}
