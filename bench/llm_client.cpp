// Chat client overhead: round-trip time of one chat() call against a local fake server that
// answers at once (so the figure is the client's JSON, curl and HTTP cost, not a model's).
//
//   accelopt-fake-llm --script SCRIPT --port-file PORT_FILE &   # any script with an instant reply
//   bench_llm_client --url http://127.0.0.1:PORT [--calls N] [--threads T] [--stream 1]
// --stream 1 asks for the answer as an event stream (SSE), which the client parses once it arrived.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <fmt/core.h>

#include "llm/client.h"

namespace {

using Clock = std::chrono::steady_clock;

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values.empty() ? 0 : values[values.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  std::string url;
  int calls = 500, threads = 1;
  bool stream = false;
  for (int arg = 1; arg + 1 < argc; arg += 2) {
    if (std::strcmp(argv[arg], "--url") == 0) url = argv[arg + 1];
    if (std::strcmp(argv[arg], "--calls") == 0) calls = std::max(1, std::atoi(argv[arg + 1]));
    if (std::strcmp(argv[arg], "--threads") == 0) threads = std::max(1, std::atoi(argv[arg + 1]));
    if (std::strcmp(argv[arg], "--stream") == 0) stream = std::atoi(argv[arg + 1]) != 0;
  }
  if (url.empty()) {
    fmt::print(stderr, "usage: bench_llm_client --url http://127.0.0.1:PORT [--calls N] [--threads T] [--stream 1]\n");
    return 2;
  }
  llm::EndpointConfig config;
  config.url = url;
  config.model = "bench-model";
  config.max_concurrency = threads;
  config.stream = stream;
  auto client = llm::make_client(config);
  llm::ChatRequest request;
  request.messages = {{"system", std::string(2000, 's')}, {"user", std::string(8000, 'u')}};  // typical prompt size
  std::vector<std::vector<double>> per_thread(threads);
  auto start = Clock::now();
  std::vector<std::thread> workers;
  for (int thread_idx = 0; thread_idx < threads; ++thread_idx) {
    workers.emplace_back([&, thread_idx] {
      for (int call_idx = thread_idx; call_idx < calls; call_idx += threads) {
        auto call_start = Clock::now();
        client->chat(request);
        per_thread[thread_idx].push_back(std::chrono::duration<double, std::milli>(Clock::now() - call_start).count());
      }
    });
  }
  for (auto& worker : workers) worker.join();
  double wall_s = std::chrono::duration<double>(Clock::now() - start).count();
  std::vector<double> all;
  for (auto& samples : per_thread) all.insert(all.end(), samples.begin(), samples.end());
  fmt::print("calls: {}, threads: {}, streamed: {}\n", calls, threads, stream ? "yes" : "no");
  fmt::print("chat() round trip: median {:.3f} ms\n", median(all));
  fmt::print("throughput: {:.0f} calls/s\n", calls / wall_s);
  return 0;
}
