#include "support/test_hooks.h"

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <thread>

#include <nlohmann/json.hpp>

#include "eval/worker.h"

namespace eval {
namespace {

void append_line(const std::string& path, const std::string& line) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error("test hook: cannot append to '" + path + "'");
  std::string text = line + "\n";
  (void)!::write(fd, text.data(), text.size());  // one write: atomic for O_APPEND on local disk
  ::close(fd);
}

[[noreturn]] void crash(const std::string& how) {
  if (how == "exit") ::_exit(3);
  std::abort();
}

bool claim_marker(const std::string& path) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return false;
  ::close(fd);
  return true;
}

}  // namespace

std::optional<Evaluation> apply_test_hook(const std::string& hook_json, const std::string& key) {
  if (hook_json.empty()) return std::nullopt;
  nlohmann::json hook = nlohmann::json::parse(hook_json);
  if (!hook.is_object()) throw std::runtime_error("test hook: expected an object");
  if (hook.contains("record_run")) append_line(hook["record_run"].get<std::string>(), key + " " + std::to_string(::getpid()));
  if (hook.contains("sleep_s"))
    std::this_thread::sleep_for(std::chrono::duration<double>(hook["sleep_s"].get<double>()));
  if (hook.contains("crash")) crash(hook["crash"].get<std::string>());
  if (hook.contains("crash_once_marker") && claim_marker(hook["crash_once_marker"].get<std::string>()))
    crash("abort");
  if (hook.value("hang", false))
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(60));
  if (hook.contains("result")) return evaluation_from_json(hook["result"]);
  return std::nullopt;
}

namespace {
// Installed when the test build of the CLI starts (this file is linked only into it).
const bool kInstalled = (install_job_hook(apply_test_hook), true);
}  // namespace

}  // namespace eval
