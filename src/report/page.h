// The report page: one self-contained HTML file (inline CSS, scripts and data; no network). The
// page data (run_data.h, or a benchmark's JSON) is embedded as JSON and drawn as SVG by the
// scripts in src/report/assets/, which the build embeds in the binary together with Debian's
// jsdiff (node-diff) for the kernel diffs.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

namespace report {

// `data` has "kind": "run" | "compare" | "bench".
std::string render_page(const nlohmann::json& data, const std::string& title);

// The benchmark page data from bench::to_json(report).
nlohmann::json bench_page_data(const nlohmann::json& bench_json);

// Writes the page atomically (temporary file + rename), so a browser reloading it during a run
// never reads half a file. Throws std::runtime_error naming the file.
void write_page(const std::string& path, const std::string& html);

}  // namespace report
