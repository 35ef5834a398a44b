// Derives the simulator's error band (trn/error_band.h) from the suite's residuals: per bound class
// of the simulated profile, the spread of real / simulated latency over the entries whose metric is
// an end-to-end latency.
#pragma once

#include <vector>

#include "fidelity/runner.h"
#include "trn/error_band.h"

namespace fidelity {

// The q-quantile of `values` (linear interpolation between order statistics); 0 for an empty sample.
double quantile(std::vector<double> values, double q);

// Residual r = log(real / simulated) per compared latency entry, grouped by bound class; each band
// spans [exp(quantile q of r), exp(quantile 1-q of r)], the pooled band likewise over all classes.
// The speedup band likewise over log(real speedup / simulated speedup) of every pair of latency
// entries within one ladder (same group and generation), taken both ways.
trn::ErrorBandTable derive_error_band(const std::vector<EntryResult>& results, double q = 0.1, int min_samples = 4);

}  // namespace fidelity
