// The suite's figures: per ladder Kendall tau, the direction of each step and the pairwise ordering
// agreement; per generation and per role the median |log(simulated / measured)| and how many
// entries run.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "fidelity/runner.h"

namespace fidelity {

// A step whose latency changes by less than this (either way) is "flat": the sources' run-to-run
// spread is below 0.5%, but versions within 2% (e.g. kernel_optimization v3-v5) are not ordered by
// anything the kernels do.
constexpr double kFlatChange = 0.02;

// Kendall's tau-b of two equally long samples; NaN when fewer than two points or when either
// sample is constant.
double kendall_tau_b(const std::vector<double>& x, const std::vector<double>& y);

double median(std::vector<double> values);  // 0 for an empty sample

// -1 faster, 0 flat, +1 slower going from `before` to `after`.
int direction(double before, double after);

struct Step {
  std::string from, to;  // entry names
  double real_change = 0, sim_change = 0;  // after / before - 1
  int real_dir = 0, sim_dir = 0;
  bool match() const { return real_dir == sim_dir; }
};

struct LadderSummary {
  std::string name, gen;
  Role role = Role::Validate;
  int entries = 0, compared = 0;
  double tau = 0;           // NaN when undefined (fewer than two compared entries)
  std::vector<Step> steps;  // between consecutive compared entries
  int pairs = 0, pairs_agree = 0;  // pairs the device orders (not flat), and those the model orders alike
};

struct Figure {
  int entries = 0, running = 0, compared = 0;
  double median_abs_log_ratio = 0;  // over compared entries
};

struct Summary {
  std::vector<LadderSummary> ladders;
  std::map<std::string, Figure> by_gen;   // "trn1", "trn2", "all"
  std::map<std::string, Figure> by_role;  // "calibrate", "validate"
  int pairs = 0, pairs_agree = 0;         // over every ladder
};

Summary summarize(const std::vector<EntryResult>& results);

}  // namespace fidelity
