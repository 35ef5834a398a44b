// A process killed with SIGKILL at an arbitrary moment loses nothing that the store reported
// as stored: a child writes LLM calls and reports each returned id through a pipe; the parent
// kills it mid-stream, reopens the file and finds every reported row intact.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <set>

#include <gtest/gtest.h>

#include "base/content_hash.h"
#include "store/run_store.h"

namespace {

namespace fs = std::filesystem;

[[noreturn]] void write_until_killed(const std::string& path, int report_fd) {
  try {
    store::RunStore store(path);
    int64_t run_id = store.create_run("crash", "{}");
    for (int call_idx = 0;; ++call_idx) {
      store::LlmCallRecord call;
      call.run_id = run_id;
      call.agent = "executor";
      call.model = "m";
      call.request_hash = base::content_hash(std::to_string(call_idx));
      call.sample = call_idx;
      call.input_tokens = call_idx;
      call.response_text = std::string(2000, 'k') + std::to_string(call_idx);
      int64_t id = store.add_llm_call(call);
      // Reported only after add_llm_call returned, i.e. after the commit.
      if (write(report_fd, &id, sizeof id) != sizeof id) _exit(3);
    }
  } catch (...) {
    _exit(2);
  }
}

TEST(CrashSafety, KillDashNineLosesNoCommittedRow) {
  fs::path dir = fs::temp_directory_path() / ("accelopt_crash_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string path = (dir / "run.sqlite").string();

  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    close(fds[0]);
    write_until_killed(path, fds[1]);
  }
  close(fds[1]);
  std::set<int64_t> reported;
  int64_t id = 0;
  while (reported.size() < 40 && read(fds[0], &id, sizeof id) == sizeof id) reported.insert(id);
  kill(child, SIGKILL);
  // Ids already in the pipe were committed too.
  while (read(fds[0], &id, sizeof id) == sizeof id) reported.insert(id);
  close(fds[0]);
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the writer stopped on its own (status " << status << ")";
  ASSERT_GE(reported.size(), 40u);

  store::RunStore store(path);
  auto run = store.latest_run();
  ASSERT_TRUE(run);
  std::set<int64_t> stored;
  for (const auto& call : store.llm_calls(run->id)) {
    stored.insert(call.id);
    EXPECT_EQ(call.response_text, std::string(2000, 'k') + std::to_string(call.sample));
    EXPECT_EQ(call.request_hash, base::content_hash(std::to_string(call.sample)));
  }
  for (int64_t reported_id : reported) EXPECT_TRUE(stored.count(reported_id)) << "lost call " << reported_id;
  fs::remove_all(dir);
}

}  // namespace
