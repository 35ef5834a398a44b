{
 "arch": "trn1",
 "engine_busy_ms": {
  "dma": 0.14894545454545452,
  "dma_spill": 0.059578181818181815,
  "dma_store": 0.08936727272727271,
  "dve": 0.055125
 },
 "gpsimd_engine_active_time_percent": 0.0,
 "hardware_flops": 0,
 "hbm_read_bytes": 10485760,
 "hbm_write_bytes": 41943040,
 "hfu_estimated_percent": 0.0,
 "instructions": 6,
 "latency": 0.18959545454545454,
 "mm_arithmetic_intensity": 0.0,
 "peak_flops_bandwidth_ratio": 223.78146341463415,
 "psum_read_bytes": 0,
 "psum_write_bytes": 0,
 "sbuf_read_bytes": 41943040,
 "sbuf_write_bytes": 41943040,
 "scalar_engine_active_time_percent": 0.0,
 "spill_reload_bytes": 10485760,
 "spill_save_bytes": 10485760,
 "transpose_flops": 0,
 "vector_engine_active_time_percent": 0.290750641317638
}
