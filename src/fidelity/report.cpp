#include "fidelity/report.h"

#include <cmath>
#include <set>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "fidelity/fields.h"
#include "trn/error_band.h"

namespace fidelity {
namespace {

nlohmann::json number_or_null(double v) { return std::isnan(v) ? nlohmann::json(nullptr) : nlohmann::json(v); }

std::string status_of(const EntryResult& r) {
  if (!r.profile) return fmt::format("not running ({})", eval::to_string(r.profile_outcome));
  if (r.check == CheckState::Failed) return fmt::format("check failed ({})", r.check_note);
  if (r.entry->metric == Metric::None) return "runs, not compared";
  return "ok";
}

std::string format_us(double us) {
  if (us >= 1000) return fmt::format("{:.2f} ms", us / 1000);
  if (us >= 1) return fmt::format("{:.2f} us", us);
  return fmt::format("{:.0f} ns", us * 1000);
}

std::string dir_word(int d) { return d < 0 ? "faster" : d > 0 ? "slower" : "flat"; }

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

void format_figure(std::string& out, const std::string& label, const Figure& f) {
  out += fmt::format("  {:<10} {:>3} entries, {:>3} run, {:>3} compared, median |log(sim/real)| {:.3f} (x{:.2f})\n",
                     label, f.entries, f.running, f.compared, f.median_abs_log_ratio,
                     std::exp(f.median_abs_log_ratio));
}

}  // namespace

nlohmann::json to_json(const EntryResult& r) {
  const Entry& e = *r.entry;
  nlohmann::json j = {{"id", e.id()},
                      {"group", e.group},
                      {"name", e.name},
                      {"gen", e.gen},
                      {"role", to_string(e.role)},
                      {"metric", to_string(e.metric)},
                      {"measured", e.measured},
                      {"unit", e.unit},
                      {"measured_us", r.measured_us},
                      {"source", e.source},
                      {"status", status_of(r)},
                      {"runs", r.runs()},
                      {"check", r.check == CheckState::Passed   ? "passed"
                                : r.check == CheckState::Failed ? "failed"
                                                                : "skipped"},
                      {"check_note", r.check_note},
                      {"profile_outcome", eval::to_string(r.profile_outcome)},
                      {"diagnostics", r.diagnostics},
                      {"trace_seconds", r.seconds}};
  if (r.profile) {
    j["simulated_us"] = r.simulated_us;
    j["simulated_latency_ms"] = r.profile->latency;
    j["bound_class"] = trn::to_string(trn::classify(*r.profile));
    j["instructions"] = r.profile->instructions;
  }
  if (r.compared()) {
    j["ratio"] = r.ratio();
    j["log_ratio"] = std::log(r.ratio());
  }
  return j;
}

nlohmann::json to_json(const Summary& s) {
  nlohmann::json ladders = nlohmann::json::array();
  for (const auto& l : s.ladders) {
    nlohmann::json steps = nlohmann::json::array();
    for (const auto& st : l.steps)
      steps.push_back({{"from", st.from}, {"to", st.to}, {"real_change", st.real_change},
                       {"sim_change", st.sim_change}, {"real", dir_word(st.real_dir)},
                       {"simulated", dir_word(st.sim_dir)}, {"match", st.match()}});
    ladders.push_back({{"name", l.name}, {"gen", l.gen}, {"role", to_string(l.role)}, {"entries", l.entries},
                       {"compared", l.compared}, {"kendall_tau", number_or_null(l.tau)}, {"steps", steps},
                       {"pairs", l.pairs}, {"pairs_agree", l.pairs_agree}});
  }
  auto figures = [](const std::map<std::string, Figure>& m) {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& [k, f] : m)
      j[k] = {{"entries", f.entries}, {"running", f.running}, {"compared", f.compared},
              {"median_abs_log_ratio", f.median_abs_log_ratio}};
    return j;
  };
  return {{"ladders", ladders},
          {"by_gen", figures(s.by_gen)},
          {"by_role", figures(s.by_role)},
          {"pairs", s.pairs},
          {"pairs_agree", s.pairs_agree},
          {"pairwise_agreement", s.pairs ? nlohmann::json(double(s.pairs_agree) / s.pairs) : nlohmann::json(nullptr)}};
}

std::string format_text(const std::vector<EntryResult>& results, const Summary& s) {
  std::string out = fmt::format("{:<52} {:<4} {:<9} {:<13} {:>12} {:>12} {:>8}  {:<7} {}\n", "entry", "gen", "role",
                                "metric", "measured", "simulated", "sim/real", "bound", "status");
  for (const auto& r : results) {
    const Entry& e = *r.entry;
    std::string sim = r.profile && e.metric != Metric::None ? format_us(r.simulated_us) : "-";
    std::string ratio = r.compared() ? fmt::format("{:.2f}x", r.ratio()) : "-";
    std::string bound = r.profile ? trn::to_string(trn::classify(*r.profile)) : "-";
    out += fmt::format("{:<52} {:<4} {:<9} {:<13} {:>12} {:>12} {:>8}  {:<7} {}\n", e.id(), e.gen,
                       to_string(e.role), to_string(e.metric) + (e.per > 1 ? fmt::format("/{}", e.per) : ""),
                       format_us(r.measured_us), sim, ratio, bound, status_of(r));
  }
  int failing = 0;
  for (const auto& r : results) failing += !r.runs();
  if (failing) {
    out += fmt::format("\n{} entries do not run or fail their check:\n", failing);
    for (const auto& r : results) {
      if (r.runs()) continue;
      out += fmt::format("  {}:\n", r.entry->id());
      for (const auto& d : r.diagnostics) out += fmt::format("    {}\n", first_line(d));
    }
  }
  if (!s.ladders.empty()) out += "\nladders (Kendall tau of simulated vs measured; steps within 2% are flat):\n";
  for (const auto& l : s.ladders) {
    int matching = 0;
    for (const auto& st : l.steps) matching += st.match();
    out += fmt::format("  {} ({}, {}): tau {}, steps {}/{} in the device's direction, pairs ordered {}/{}\n", l.name,
                       l.gen, to_string(l.role), std::isnan(l.tau) ? "n/a" : fmt::format("{:+.2f}", l.tau), matching,
                       l.steps.size(), l.pairs_agree, l.pairs);
    for (const auto& st : l.steps)
      out += fmt::format("    {} -> {}: device {:+.1f}% {}, simulated {:+.1f}% {}{}\n", st.from, st.to,
                         100 * st.real_change, dir_word(st.real_dir), 100 * st.sim_change, dir_word(st.sim_dir),
                         st.match() ? "" : "   <- wrong direction");
  }
  out += "\nsummary:\n";
  for (const auto& [k, f] : s.by_gen) format_figure(out, k, f);
  for (const auto& [k, f] : s.by_role) format_figure(out, k, f);
  if (s.pairs)
    out += fmt::format("  pairwise ordering agreement within ladders: {}/{} = {:.2f}\n", s.pairs_agree, s.pairs,
                       double(s.pairs_agree) / s.pairs);
  return out;
}

namespace {

nlohmann::json field_allowances_to_json(const std::map<std::string, double>& allowances) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [key, value] : allowances) j[key] = std::isinf(value) ? nlohmann::json(nullptr) : nlohmann::json(value);
  return j;
}

}  // namespace

Thresholds thresholds_of(const std::vector<EntryResult>& results) {
  const Summary s = summarize(results);
  Thresholds t;
  for (const auto& r : results)
    if (r.compared()) t.compared_entries.push_back(r.entry->id());
  auto all = s.by_gen.find("all");
  t.running_min = all == s.by_gen.end() ? 0 : all->second.running;
  for (const auto& [gen, f] : s.by_gen)
    if (gen != "all") t.median_abs_log_ratio_max[gen] = std::ceil(f.median_abs_log_ratio * 1e4) / 1e4;
  for (const auto& l : s.ladders)
    if (!std::isnan(l.tau)) t.ladder_tau_min[l.name] = std::floor(l.tau * 1e4) / 1e4;
  for (const auto& ef : field_comparisons(results))
    for (const auto& row : ef.rows)
      if (row.recorded_present && !row.within)
        t.field_abs_log_ratio_max[ef.result->entry->id() + " " + row.field] =
            std::ceil(std::abs(std::log(row.ratio)) * 1e4) / 1e4;
  return t;
}

nlohmann::json to_json(const Thresholds& t) {
  return {{"format", "accelopt-fidelity-thresholds/1"},
          {"rule", "today's figures; they may only be tightened, never loosened (fidelity/README.md)"},
          {"running_min", t.running_min},
          {"compared_entries", t.compared_entries},
          {"median_abs_log_ratio_max", t.median_abs_log_ratio_max},
          {"ladder_tau_min", t.ladder_tau_min},
          {"field_abs_log_ratio_max", field_allowances_to_json(t.field_abs_log_ratio_max)}};
}

Thresholds thresholds_from_json(const nlohmann::json& j) {
  if (!j.is_object() || j.value("format", "") != "accelopt-fidelity-thresholds/1")
    throw std::runtime_error("not a fidelity thresholds file (expected \"format\": \"accelopt-fidelity-thresholds/1\")");
  try {
    Thresholds t;
    t.running_min = j.at("running_min").get<int>();
    t.compared_entries = j.at("compared_entries").get<std::vector<std::string>>();
    t.median_abs_log_ratio_max = j.at("median_abs_log_ratio_max").get<std::map<std::string, double>>();
    t.ladder_tau_min = j.at("ladder_tau_min").get<std::map<std::string, double>>();
    if (auto it = j.find("field_abs_log_ratio_max"); it != j.end())
      for (const auto& [key, value] : it->items())
        t.field_abs_log_ratio_max[key] = value.is_null() ? INFINITY : value.get<double>();
    return t;
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(fmt::format("fidelity thresholds: {}", e.what()));
  }
}

std::vector<std::string> guard_failures(const std::vector<EntryResult>& results, const Thresholds& t) {
  std::vector<std::string> out;
  int running = 0;
  for (const auto& r : results) running += r.runs();
  const std::set<std::string> guarded(t.compared_entries.begin(), t.compared_entries.end());
  std::vector<EntryResult> subset;
  for (const auto& r : results)
    if (guarded.count(r.entry->id())) subset.push_back(r);
  const Summary s = summarize(subset);
  if (running < t.running_min)
    out.push_back(fmt::format("entries that run: {} < {} (threshold)", running, t.running_min));
  for (const auto& [gen, max] : t.median_abs_log_ratio_max) {
    auto it = s.by_gen.find(gen);
    if (it == s.by_gen.end()) out.push_back(fmt::format("{}: no entries ran", gen));
    else if (it->second.median_abs_log_ratio > max)
      out.push_back(fmt::format("{}: median |log ratio| {:.4f} > {:.4f} (threshold)", gen,
                                it->second.median_abs_log_ratio, max));
  }
  for (const auto& [ladder, min] : t.ladder_tau_min) {
    const LadderSummary* found = nullptr;
    for (const auto& l : s.ladders)
      if (l.name == ladder) found = &l;
    if (!found) out.push_back(fmt::format("ladder {}: not in the results", ladder));
    else if (std::isnan(found->tau) || found->tau < min)
      out.push_back(fmt::format("ladder {}: Kendall tau {} < {:.4f} (threshold)", ladder,
                                std::isnan(found->tau) ? "n/a" : fmt::format("{:.4f}", found->tau), min));
  }
  // Recorded-profile fields: within the field's tolerance, or no worse than the deviation recorded.
  for (const auto& ef : field_comparisons(results)) {
    if (!guarded.count(ef.result->entry->id())) continue;
    for (const auto& row : ef.rows) {
      if (!row.recorded_present || row.within) continue;
      auto allowed = t.field_abs_log_ratio_max.find(ef.result->entry->id() + " " + row.field);
      const double deviation = std::abs(std::log(row.ratio));
      if (allowed == t.field_abs_log_ratio_max.end())
        out.push_back(fmt::format("field {}: simulated {:.6g}, recorded {:.6g} (ratio {:.3f}) outside its tolerance",
                                  ef.result->entry->id() + " " + row.field, row.simulated, row.recorded, row.ratio));
      else if (deviation > allowed->second)
        out.push_back(fmt::format("field {}: |log ratio| {:.4f} > {:.4f} (threshold; ratio {:.3f})",
                                  allowed->first, deviation, allowed->second, row.ratio));
    }
  }
  return out;
}

}  // namespace fidelity
