#include "report/timeline_summary.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>

#include <fmt/core.h>

#include "eval/profile_run.h"
#include "search/task_loader.h"

namespace report {

namespace fs = std::filesystem;

nlohmann::json summarize_trace(const nlohmann::json& trace, int buckets) {
  struct Track {
    std::string name;
    double busy_us = 0;
    int64_t events = 0;
    std::vector<double> busy;
  };
  std::map<int, Track> tracks;
  double end_us = 0;
  const auto& events = trace.contains("traceEvents") ? trace["traceEvents"] : trace;
  if (!events.is_array()) return {{"error", "not a Chrome trace"}};
  for (const auto& e : events) {
    if (!e.is_object()) continue;
    int tid = e.value("tid", 0);
    std::string ph = e.value("ph", "");
    if (ph == "M" && e.value("name", "") == "thread_name") tracks[tid].name = e["args"].value("name", "");
    if (ph == "X") end_us = std::max(end_us, e.value("ts", 0.0) + e.value("dur", 0.0));
  }
  if (end_us <= 0) return {{"error", "the trace has no events"}};
  double width = end_us / buckets;
  for (const auto& e : events) {
    if (!e.is_object() || e.value("ph", "") != "X") continue;
    Track& t = tracks[e.value("tid", 0)];
    if (t.busy.empty()) t.busy.assign(static_cast<size_t>(buckets), 0.0);
    double start = e.value("ts", 0.0), end = start + e.value("dur", 0.0);
    t.busy_us += end - start;
    t.events++;
    // Spread the event over the buckets it covers.
    for (int b = std::max(0, static_cast<int>(start / width)); b < buckets && b * width < end; ++b) {
      double lo = std::max(start, b * width), hi = std::min(end, (b + 1) * width);
      if (hi > lo) t.busy[static_cast<size_t>(b)] += hi - lo;
    }
  }
  nlohmann::json out_tracks = nlohmann::json::array();
  for (auto& [tid, t] : tracks) {
    if (t.events == 0) continue;
    std::vector<int> percent;
    // Overlapping events on one track (DMA queues) can exceed the bucket: clamp to 100%.
    for (double us : t.busy) percent.push_back(std::min(100, static_cast<int>(100 * us / width + 0.5)));
    out_tracks.push_back({{"name", t.name.empty() ? fmt::format("track {}", tid) : t.name},
                          {"busy_us", t.busy_us},
                          {"events", t.events},
                          {"busy", percent}});
  }
  return {{"total_us", end_us}, {"buckets", buckets}, {"tracks", out_tracks}};
}

nlohmann::json best_timeline(const nlohmann::json& config, const std::string& task, const std::string& arch,
                             const std::string& kernel_text, const std::string& trace_path) {
  try {
    if (kernel_text.empty()) return {{"error", "no best kernel"}};
    std::vector<std::string> warnings;
    auto specs = search::load_tasks(config.value("bench_root", ""), task, arch, warnings, config.value("kernels", ""));
    if (specs.empty()) return {{"error", fmt::format("task {} not found in {}", task, config.value("bench_root", ""))}};
    eval::TraceRequest request = eval::trace_request_from_files(specs.front().reference_path, specs.front().baseline_path);
    request.kernel_text = kernel_text;
    std::string path = trace_path;
    bool temporary = path.empty();
    if (temporary) path = (fs::temp_directory_path() / fmt::format("accelopt-timeline-{}.json", ::getpid())).string();
    eval::ProfileRun run = eval::profile_kernel(request, arch, {.timeline_path = path, .price_sbuf_space = false});
    nlohmann::json trace;
    {
      std::ifstream in(path);
      trace = nlohmann::json::parse(in, nullptr, false);
    }
    if (temporary) fs::remove(path);
    if (!run.profile) return {{"error", fmt::format("the best kernel did not simulate ({})", eval::to_string(run.status))}};
    if (trace.is_discarded()) return {{"error", "the simulator's trace could not be read"}};
    nlohmann::json out = summarize_trace(trace, 400);
    if (!temporary) out["file"] = fs::path(path).filename().string();
    return out;
  } catch (const std::exception& e) {
    return {{"error", e.what()}};
  }
}

}  // namespace report
