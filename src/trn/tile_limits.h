// Architecture limits on the tiles of one instruction (NKI `nki.language.tile_size`, the ISA's
// per-instruction rules), the same on NC-v2 and NC-v3. One place for every reader: the interpreter
// refuses a kernel that exceeds them (src/nki/lib), the lifter gives `tile_size.*` these values
// (src/loopnest/lift_expr.cpp), and the transformations refuse a rewrite that would exceed them
// (src/loopnest/limits.cpp, the built-in agent's free_size), so no evaluation is spent on a kernel
// the hardware refuses. Header-only: the language core includes it without the simulator.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace trn::limits {

inline constexpr int64_t pmax = 128;                  // partitions of SBUF and PSUM
inline constexpr int64_t gemm_stationary_fmax = 128;  // nc_matmul stationary free size
inline constexpr int64_t gemm_moving_fmax = 512;      // nc_matmul moving free size
inline constexpr int64_t transpose_fmax = 128;        // free size of a tile nc_transpose takes
inline constexpr int64_t psum_fmax = 512;             // fp32 elements of one PSUM bank per partition
inline constexpr int64_t psum_bank_bytes = 2048;      // one PSUM bank per partition: a PSUM tile's limit
inline constexpr int64_t psum_num_banks = 8;
inline constexpr int64_t bn_stats_fmax = 512;
inline constexpr int64_t total_available_sbuf_size = 192 * 1024;

struct NamedLimit {
  std::string_view name;
  int64_t value;
};
// `nki.language.tile_size.<name>`.
inline constexpr std::array<NamedLimit, 14> tile_size = {{
    {"pmax", pmax},
    {"psum_fmax", psum_fmax},
    {"gemm_stationary_fmax", gemm_stationary_fmax},
    {"gemm_moving_fmax", gemm_moving_fmax},
    {"bn_stats_fmax", bn_stats_fmax},
    {"psum_min_align", 4},
    {"sbuf_min_align", 1},
    {"total_available_sbuf_size", total_available_sbuf_size},
    {"psum_bank_fmax", psum_fmax},
    {"psum_bank_fmax_bytes", psum_bank_bytes},
    {"psum_num_banks", psum_num_banks},
    // NKI 0.4 names for the per-partition SBUF (nki-language.md 12.1): bytes, and fp32 elements.
    {"sbuf_size_bytes", total_available_sbuf_size},
    {"sbuf_fmax", total_available_sbuf_size / 4},
    {"sbuf_fmax_bytes", total_available_sbuf_size},
}};

inline std::optional<int64_t> tile_size_value(std::string_view name) {
  for (const auto& l : tile_size)
    if (l.name == name) return l.value;
  return std::nullopt;
}

}  // namespace trn::limits
