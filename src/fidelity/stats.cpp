#include "fidelity/stats.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace fidelity {
namespace {

int sign(double v) { return (v > 0) - (v < 0); }

void add(Figure& f, const EntryResult& r, std::vector<double>& logs) {
  ++f.entries;
  if (r.runs()) ++f.running;
  if (r.compared()) {
    ++f.compared;
    logs.push_back(std::fabs(std::log(r.ratio())));
  }
}

LadderSummary ladder_summary(const std::vector<const EntryResult*>& members) {
  LadderSummary l;
  const Entry& first = *members.front()->entry;
  l.name = first.group;
  l.gen = first.gen;
  l.role = first.role;
  l.entries = int(members.size());
  std::vector<const EntryResult*> compared;
  for (const auto* r : members)
    if (r->compared()) compared.push_back(r);
  l.compared = int(compared.size());
  std::vector<double> real, sim;
  for (const auto* r : compared) {
    real.push_back(r->measured_us);
    sim.push_back(r->simulated_us);
  }
  l.tau = kendall_tau_b(real, sim);
  for (size_t i = 1; i < compared.size(); ++i) {
    Step s;
    s.from = compared[i - 1]->entry->name;
    s.to = compared[i]->entry->name;
    s.real_change = real[i] / real[i - 1] - 1;
    s.sim_change = sim[i] / sim[i - 1] - 1;
    s.real_dir = direction(real[i - 1], real[i]);
    s.sim_dir = direction(sim[i - 1], sim[i]);
    l.steps.push_back(s);
  }
  for (size_t i = 0; i < compared.size(); ++i)
    for (size_t j = i + 1; j < compared.size(); ++j) {
      int device = direction(real[i], real[j]);
      if (device == 0) continue;
      ++l.pairs;
      l.pairs_agree += sign(sim[j] - sim[i]) == device;
    }
  return l;
}

}  // namespace

double kendall_tau_b(const std::vector<double>& x, const std::vector<double>& y) {
  const size_t n = std::min(x.size(), y.size());
  long concordant = 0, discordant = 0, ties_x = 0, ties_y = 0;
  for (size_t i = 0; i < n; ++i)
    for (size_t j = i + 1; j < n; ++j) {
      int sx = sign(x[j] - x[i]), sy = sign(y[j] - y[i]);
      if (sx == 0 && sy == 0) continue;
      if (sx == 0) ++ties_x;
      else if (sy == 0) ++ties_y;
      else if (sx == sy) ++concordant;
      else ++discordant;
    }
  double denom = std::sqrt(double(concordant + discordant + ties_x) * double(concordant + discordant + ties_y));
  if (denom == 0) return std::numeric_limits<double>::quiet_NaN();
  return double(concordant - discordant) / denom;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int direction(double before, double after) {
  double change = after / before - 1;
  if (std::fabs(change) < kFlatChange) return 0;
  return change > 0 ? 1 : -1;
}

Summary summarize(const std::vector<EntryResult>& results) {
  Summary s;
  std::map<std::string, std::vector<double>> gen_logs, role_logs;
  for (const auto& r : results) {
    add(s.by_gen[r.entry->gen], r, gen_logs[r.entry->gen]);
    add(s.by_gen["all"], r, gen_logs["all"]);
    add(s.by_role[to_string(r.entry->role)], r, role_logs[to_string(r.entry->role)]);
  }
  for (auto& [k, f] : s.by_gen) f.median_abs_log_ratio = median(gen_logs[k]);
  for (auto& [k, f] : s.by_role) f.median_abs_log_ratio = median(role_logs[k]);

  // Ladders in manifest order; a ladder's entries are consecutive in the manifest.
  std::vector<const EntryResult*> members;
  auto flush = [&] {
    if (!members.empty()) s.ladders.push_back(ladder_summary(members));
    members.clear();
  };
  for (const auto& r : results) {
    if (!r.entry->ladder) continue;
    if (!members.empty() && members.front()->entry->group != r.entry->group) flush();
    members.push_back(&r);
  }
  flush();
  for (const auto& l : s.ladders) {
    s.pairs += l.pairs;
    s.pairs_agree += l.pairs_agree;
  }
  return s;
}

}  // namespace fidelity
