#include "fidelity/band.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <utility>

#include <fmt/core.h>

namespace fidelity {
namespace {

trn::ErrorBand band_of(const std::vector<double>& residuals, double q) {
  trn::ErrorBand b;
  b.samples = int(residuals.size());
  if (residuals.empty()) return b;
  b.low = std::exp(quantile(residuals, q));
  b.high = std::exp(quantile(residuals, 1 - q));
  return b;
}

// log(real speedup / simulated speedup) for every ordered pair of compared latency entries of one
// ladder (same group and generation): both orders, so the band is symmetric about no error.
std::vector<double> ladder_speedup_residuals(const std::vector<EntryResult>& results) {
  std::map<std::pair<std::string, std::string>, std::vector<const EntryResult*>> ladders;
  for (const auto& r : results)
    if (r.entry->ladder && r.compared() && is_latency(r.entry->metric))
      ladders[{r.entry->gen, r.entry->group}].push_back(&r);
  std::vector<double> residuals;
  for (const auto& [key, members] : ladders)
    for (size_t i = 0; i < members.size(); ++i)
      for (size_t j = i + 1; j < members.size(); ++j) {
        const EntryResult& a = *members[i];
        const EntryResult& b = *members[j];
        double r = std::log((a.measured_us / b.measured_us) / (a.simulated_us / b.simulated_us));
        residuals.push_back(r);
        residuals.push_back(-r);
      }
  return residuals;
}

}  // namespace

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  double pos = std::clamp(q, 0.0, 1.0) * double(v.size() - 1);
  size_t lo = size_t(std::floor(pos));
  size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (pos - double(lo)) * (v[hi] - v[lo]);
}

trn::ErrorBandTable derive_error_band(const std::vector<EntryResult>& results, double q, int min_samples) {
  std::map<trn::BoundClass, std::vector<double>> by_class;
  std::vector<double> all;
  for (const auto& r : results) {
    if (!r.compared() || !is_latency(r.entry->metric)) continue;
    double residual = std::log(r.measured_us / r.simulated_us);
    by_class[trn::classify(*r.profile)].push_back(residual);
    all.push_back(residual);
  }
  trn::ErrorBandTable t;
  t.quantile = q;
  t.min_samples = min_samples;
  t.pooled = band_of(all, q);
  for (const auto& [c, residuals] : by_class) t.classes[c] = band_of(residuals, q);
  std::vector<double> speedups = ladder_speedup_residuals(results);
  t.speedup = band_of(speedups, q);
  t.speedup.samples = int(speedups.size() / 2);  // pairs, not orders
  t.derived_from = fmt::format(
      "accelopt fidelity --write-band: {} latency entries of fidelity/manifest.yaml, {} pairs within ladders",
      all.size(), t.speedup.samples);
  return t;
}

}  // namespace fidelity
