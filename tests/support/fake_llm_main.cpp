// accelopt-fake-llm: the scripted fake LLM server as a process, for end-to-end runs by hand or
// from tests. Prints "fake-llm listening on http://127.0.0.1:PORT" and serves until SIGINT/SIGTERM.
#include <csignal>
#include <cstdio>
#include <fstream>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include "base/atomic_file.h"
#include "support/fake_llm_server.h"

int main(int argc, char** argv) {
  CLI::App app{"accelopt-fake-llm: a scripted fake LLM server (OpenAI and Anthropic APIs) on 127.0.0.1"};
  std::string script_path, port_file;
  int port = 0;
  app.add_option("--script", script_path, "reply script (YAML or JSON); see docs/config.md")->required();
  app.add_option("--port", port, "port to listen on (0 = any free port)")->check(CLI::Range(0, 65535));
  app.add_option("--port-file", port_file, "write the chosen port to this file once listening");
  CLI11_PARSE(app, argc, argv);

  // Block the stop signals in every thread; the main thread waits for them below.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  try {
    fake_llm::FakeLlmServer server(fake_llm::load_script(script_path));
    int bound = server.start(port);
    if (!port_file.empty()) {
      // Atomically, so a reader never sees a partial port number.
      base::write_file_atomic(port_file, fmt::format("{}\n", bound));
    }
    fmt::print("fake-llm listening on {}\n", server.url());
    std::fflush(stdout);
    int signal_number = 0;
    sigwait(&stop_signals, &signal_number);
    server.stop();
    fmt::print("{}\n", fake_llm::stats_json(server.stats()));
  } catch (const std::exception& error) {
    fmt::print(stderr, "accelopt-fake-llm: error: {}\n", error.what());
    return 2;
  }
  return 0;
}
