// DMA payload facts the loop-nest moves judge "where it pays" by (not legality).
#pragma once

#include <cstdint>

namespace loopnest {

// Bytes per partition from which a DMA runs at full throughput: trainium-measurements.md, "Payload
// rule of thumb" (>= 4 KiB for full saturation; 4 KiB is 0.97 of the 32 KiB point in "Throughput vs
// bytes per partition", trn/arch_config.cpp's kDmaCurve). coalesce_stores assembles tiles below it;
// fill_partitions splits transfers only into pieces at or above it.
inline constexpr int64_t kSaturatingPayload = 4096;

}  // namespace loopnest
