// The engine timeline of a task's best kernel for the report: the kernel is simulated once more
// (trace only, as `accelopt profile --timeline`), the Chrome trace is kept beside the page for
// Perfetto, and each engine/queue track is reduced to its busy fraction in a fixed number of time
// buckets, which the page draws as a strip chart whatever the trace's size.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace report {

// {"total_us", "buckets", "tracks": [{"name", "busy_us", "events", "busy": [percent per bucket]}],
//  "file"} or {"error": "..."}. `config`: the run's config.json (bench_root, kernels);
// `trace_path`: where the Chrome trace is written ("" = a temporary file, removed).
nlohmann::json best_timeline(const nlohmann::json& config, const std::string& task, const std::string& arch,
                             const std::string& kernel_text, const std::string& trace_path);

// Reduces a Chrome trace (trn::TimelineWriter's format) to the strips above.
nlohmann::json summarize_trace(const nlohmann::json& trace, int buckets);

}  // namespace report
