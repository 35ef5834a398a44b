// The report on a large run: writes a synthetic run directory shaped like the search loop's
// (tasks x rounds x beam x plans x kernels, ~60% correct, failures with diagnostics, profiles,
// model calls, memory items) and times `accelopt report`'s two steps: reading the run into the
// page data, and rendering the page. Prints medians and the page's size. The browser's load time
// of the same page is measured by tests/ui/report_browser_test.py --large (docs/performance.md).
//
//   bench_report_page OUT_DIR [--tasks 4] [--rounds 12] [--beam 4] [--plans 6] [--kernels 3] [--repeat 3]
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "base/content_hash.h"
#include "report/page.h"
#include "report/run_data.h"
#include "store/run_store.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// A kernel of realistic size (~3 KB) that differs by its number.
std::string kernel_text(const std::string& task, int64_t n) {
  std::string body = fmt::format("import neuronxcc.nki as nki\nimport neuronxcc.nki.language as nl\n\n# {} variant {}\n"
                                 "@nki.jit\ndef kernel(x):\n    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)\n",
                                 task, n);
  for (int line = 0; line < 60; ++line)
    body += fmt::format("    t{} = nl.load(x[{}:{}, 0:512])  # tile {} of variant {}\n", line, line * 128, line * 128 + 128, line, n % 97);
  return body + "    return out\n";
}

nlohmann::json profile(double ms) {
  return {{"latency", ms}, {"hbm_read_bytes", 58720256}, {"hbm_write_bytes", 58720256}, {"spill_save_bytes", 0},
          {"spill_reload_bytes", 0}, {"hfu_estimated_percent", 0.0}, {"vector_engine_active_time_percent", 0.41},
          {"scalar_engine_active_time_percent", 0.77}, {"gpsimd_engine_active_time_percent", 0.0},
          {"engine_busy_ms", {{"act", ms * 0.77}, {"dve", ms * 0.41}, {"dma", ms * 0.93}, {"pe", 0.0}, {"pool", 0.0}}},
          {"instructions", 4096}, {"arch", "trn1"}};
}

struct Shape {
  int tasks = 4, rounds = 12, beam = 4, plans = 6, kernels = 3, repeat = 3;
};

int64_t write_run(const fs::path& dir, const Shape& shape) {
  fs::remove_all(dir);
  fs::create_directories(dir / "best");
  store::RunStore s((dir / "run.db").string());
  nlohmann::json config = {{"tasks", "synthetic"}, {"agent", "llm"}, {"arch", "trn1"},
                           {"params", {{"B", shape.beam}, {"N", shape.plans}, {"K", shape.kernels}, {"T", shape.rounds},
                                       {"topk", 8}, {"expn", 16}, {"t_pos", 1.05}, {"t_neg", 1.05}}},
                           {"budgets", {{"usd", 0}}}, {"bench_root", ""}};
  std::ofstream(dir / "config.json") << config.dump(2);
  int64_t run = s.create_run(dir.filename().string(), config.dump());
  auto call = [&](const char* agent, int round, int64_t in, int64_t out, double usd, int64_t n) {
    store::LlmCallRecord c;
    c.run_id = run;
    c.agent = agent;
    c.model = "synthetic-model";
    c.request_hash = base::content_hash(fmt::format("{}{}", agent, n));
    c.round = round;
    c.input_tokens = in, c.output_tokens = out, c.cost_usd = usd, c.latency_s = 10, c.attempts = 1;
    c.response_text = std::string(3000, 'k');
    return c;
  };
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> unit(0, 1);
  nlohmann::json tasks = nlohmann::json::array();
  int64_t evaluations = 0, n = 0;
  double usd = 0;
  for (int t = 0; t < shape.tasks; ++t) {
    std::string task = fmt::format("task{}_M4096_N7168", t);
    double base_ms = 1 + t;
    int64_t base = 0;
    s.transaction([&] {
      base = s.add_kernel({0, run, task, base::content_hash(task), kernel_text(task, n++), 0, 0, 0, -1});
      s.add_evaluation({0, base, "ok", "", profile(base_ms).dump(), base_ms, ""});
    });
    evaluations++;
    std::vector<std::pair<int64_t, double>> beam = {{base, base_ms}};
    nlohmann::json rounds = nlohmann::json::array();
    for (int r = 1; r <= shape.rounds; ++r) {
      s.transaction([&] {
        s.begin_round(run, task, r);
        if (r == 1) s.set_beam(run, 0, {{run, 0, task, 0, base}});
        std::vector<std::pair<int64_t, double>> pool = beam;
        for (size_t c = 0; c < beam.size(); ++c) {
          s.add_llm_call(call("planner", r, 4000, 900, 0.0012, n));
          for (int p = 0; p < shape.plans; ++p) {
            int64_t plan = s.add_plan({0, run, r, task, beam[c].first, 0, fmt::format("Optimization {}\n\nDetails of plan {}", (p + r) % 9, p)});
            for (int k = 0; k < shape.kernels; ++k) {
              s.add_llm_call(call("executor", r, 6000, 3000, 0.0027, n));
              usd += 0.0027;
              std::string text = kernel_text(task, n++);
              int64_t id = s.add_kernel({0, run, task, base::content_hash(text), text, 0, 0, 0, -1});
              double u = unit(rng);
              store::EvaluationRecord e{0, id, "ok", "", "", std::nullopt, ""};
              if (u < 0.6) {
                double ms = beam[c].second * (0.85 + 0.3 * unit(rng));
                e.latency_ms = ms;
                e.profile_json = profile(ms).dump();
                pool.push_back({id, ms});
              } else if (u < 0.8) {
                e.status = "incorrect";
                e.diagnostics = fmt::format("mismatch on seed {}: rel_l2 {:.3f} > 2e-05\n", 21 * (n % 5), unit(rng));
              } else if (u < 0.9) {
                e.status = "compile_error";
                e.diagnostics = fmt::format("kernel.py:{}:5: error: name 't{}' is not defined\n", 10 + n % 50, n % 7);
              } else {
                e.status = "runtime_error";
                e.diagnostics = fmt::format("kernel.py:{}:9: error: index {} is out of bounds for axis 0 with size 128\n", 20 + n % 40, 128 + n % 256);
              }
              s.add_evaluation(e);
              s.set_kernel_origin(id, beam[c].first, plan, 0, r);
              evaluations++;
            }
          }
        }
        std::sort(pool.begin(), pool.end(), [](auto& a, auto& b) { return a.second < b.second; });
        pool.erase(std::unique(pool.begin(), pool.end()), pool.end());
        if (pool.size() > static_cast<size_t>(shape.beam)) pool.resize(static_cast<size_t>(shape.beam));
        beam = pool;
        std::vector<store::CandidateRecord> members;
        for (size_t i = 0; i < beam.size(); ++i) members.push_back({run, r, task, static_cast<int>(i), beam[i].first});
        s.set_beam(run, r, members);
        for (int m = 0; m < 4; ++m)
          s.add_memory_item({0, run, r, nlohmann::json{{"task", task}, {"round", r}, {"kind", m % 3 ? "positive" : "negative"},
                                                       {"speedup", 1 + unit(rng) / 3}, {"plan", fmt::format("Optimization {}", (m + r) % 9)},
                                                       {"key_change", "a change"}, {"lesson", "a lesson learned from the pair"}}.dump()});
        nlohmann::json stats = {{"round", r}, {"best_latency_ms", beam.front().second}, {"evaluations", evaluations},
                                {"usage", {{"cost_usd", usd}, {"input_tokens", evaluations * 6000}, {"output_tokens", evaluations * 3000}}}};
        rounds.push_back(stats);
        s.complete_round(run, task, r, stats.dump());
      });
    }
    std::string file = task + "_0.py";
    std::ofstream(dir / "best" / file) << s.find_kernel(beam.front().first)->text;
    tasks.push_back({{"task", task}, {"kernel_file_name", file}, {"baseline_latency_ms", base_ms}, {"best_latency_ms", beam.front().second},
                     {"peak_latency_ms", base_ms * 0.4}, {"speedup", base_ms / beam.front().second},
                     {"baseline_peak_percent", 40.0}, {"best_peak_percent", 40.0 * base_ms / beam.front().second},
                     {"rounds_done", shape.rounds}, {"recheck", "passed"}, {"evaluations", evaluations}, {"rounds", rounds}});
  }
  s.set_run_status(run, "finished");
  nlohmann::json summary = {{"format", "accelopt-run-summary"}, {"run", dir.filename().string()}, {"status", "finished"},
                            {"tasks", tasks}, {"evaluations", evaluations}, {"usage", {{"cost_usd", usd}}}, {"elapsed_s", 3600.0}};
  std::ofstream(dir / "summary.json") << summary.dump(2);
  return evaluations;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    fmt::print(stderr, "usage: bench_report_page OUT_DIR [--tasks N] [--rounds N] [--beam N] [--plans N] [--kernels N] [--repeat N]\n");
    return 2;
  }
  Shape shape;
  for (int i = 2; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    int value = std::stoi(argv[i + 1]);
    if (flag == "--tasks") shape.tasks = value;
    else if (flag == "--rounds") shape.rounds = value;
    else if (flag == "--beam") shape.beam = value;
    else if (flag == "--plans") shape.plans = value;
    else if (flag == "--kernels") shape.kernels = value;
    else if (flag == "--repeat") shape.repeat = value;
    else { fmt::print(stderr, "unknown option {}\n", flag); return 2; }
  }
  fs::path dir = fs::path(argv[1]) / "large-run";
  auto t0 = Clock::now();
  int64_t evaluations = write_run(dir, shape);
  double write_s = std::chrono::duration<double>(Clock::now() - t0).count();
  report::ReportOptions options;
  options.timeline = false;  // the synthetic kernels do not run
  std::vector<double> load_s, render_s;
  std::string html;
  for (int i = 0; i < shape.repeat; ++i) {
    auto a = Clock::now();
    nlohmann::json data = report::load_run_data(dir.string(), options);
    auto b = Clock::now();
    html = report::render_page(data, "large run");
    auto c = Clock::now();
    load_s.push_back(std::chrono::duration<double>(b - a).count());
    render_s.push_back(std::chrono::duration<double>(c - b).count());
  }
  report::write_page((dir / "report.html").string(), html);
  fmt::print("synthetic run: {} evaluations ({} tasks x {} rounds, beam {}, {} plans x {} kernels), written in {:.1f} s\n",
             evaluations, shape.tasks, shape.rounds, shape.beam, shape.plans, shape.kernels, write_s);
  fmt::print("read run into page data: median {:.3f} s of {}\n", median(load_s), shape.repeat);
  fmt::print("render page:             median {:.3f} s of {}\n", median(render_s), shape.repeat);
  fmt::print("page: {} ({:.1f} MiB)\n", (dir / "report.html").string(), html.size() / 1048576.0);
  return 0;
}
