// The simulator's uncertainty for a kind of kernel: every simulated profile is classified by which
// engine dominates its busy time (or as latency-bound when none does), and carries the band
// [latency_low, latency_high] that the fidelity suite's residuals for that class give (how far the
// device's latency was from the simulated one on the public measurements). The table is derived by
// `accelopt fidelity --write-band fidelity/band.json` and compiled in (docs/simulator.md).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "trn/profile.h"

namespace trn {

enum class BoundClass { Pe, Act, Dve, Pool, Dma, Latency };

const char* to_string(BoundClass c);
std::optional<BoundClass> parse_bound_class(std::string_view name);

// An engine "dominates" when it is busy at least this share of the latency; below it for every
// engine the kernel waits on dependencies and fixed costs (latency-bound).
constexpr double kBoundBusyShare = 0.5;

// The engine (pe, act, dve, pool or the DMA fabric) with the largest busy share of the latency,
// or Latency when that share is below kBoundBusyShare (also for an empty profile).
BoundClass classify(const Profile& p);

// Real latency / simulated latency, as the factors that bound it for one class.
struct ErrorBand {
  double low = 1, high = 1;  // latency_low = latency * low, latency_high = latency * high
  int samples = 0;           // suite entries behind it
};

struct ErrorBandTable {
  std::map<BoundClass, ErrorBand> classes;
  ErrorBand pooled;      // all classes together: used for a class with fewer than min_samples
  // Real speedup / simulated speedup between two versions of one kernel (every pair of a public
  // ladder's latency entries, both ways): how far a speedup the simulator reports may be from the
  // device's. Narrower than the latency bands, because most of a kernel's error is shared by its
  // versions. samples = 0 when the table has none (then only the latency bands apply).
  ErrorBand speedup{1, 1, 0};
  int min_samples = 4;
  double quantile = 0.1;  // the band spans the quantile .. 1-quantile residuals
  std::string derived_from;
};

// Throws std::runtime_error naming what is wrong.
ErrorBandTable error_band_table_from_json(const nlohmann::json& j);
nlohmann::json to_json(const ErrorBandTable& t);

// The table compiled in from fidelity/band.json.
const ErrorBandTable& builtin_error_band_table();

// The class's band, or the pooled one when the class has too few samples.
ErrorBand band_for(const ErrorBandTable& t, BoundClass c);

// Sets p.bound_class, p.latency_low and p.latency_high.
void apply_error_band(Profile& p, const ErrorBandTable& t = builtin_error_band_table());

}  // namespace trn
