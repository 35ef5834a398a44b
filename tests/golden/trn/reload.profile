{
 "arch": "trn1",
 "dma_active_time_percent": 0.9016536214136035,
 "engine_busy_ms": {
  "dma": 0.19279294117647058,
  "dma_load": 0.07711717647058823,
  "dma_store": 0.11567576470588234,
  "dve": 0.03685714285714285
 },
 "gpsimd_engine_active_time_percent": 0.0,
 "hardware_flops": 0,
 "hbm_read_bytes": 20971520,
 "hbm_write_bytes": 31457280,
 "hfu_estimated_percent": 0.0,
 "instructions": 6,
 "latency": 0.21382151260504204,
 "mm_arithmetic_intensity": 0.0,
 "peak_flops_bandwidth_ratio": 223.78146341463415,
 "psum_read_bytes": 0,
 "psum_write_bytes": 0,
 "sbuf_read_bytes": 31457280,
 "sbuf_write_bytes": 21135360,
 "scalar_engine_active_time_percent": 0.0,
 "spill_reload_bytes": 0,
 "spill_save_bytes": 0,
 "tensor_engine_active_time_percent": 0.0,
 "transpose_flops": 0,
 "vector_engine_active_time_percent": 0.17237340812017873
}
