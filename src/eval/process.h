// Child processes for the executors and the `command` profiler: spawn in a new process group
// (so a crash or timeout kills the whole tree), wait with a deadline, capture output.
// Not thread-safe per object; ChildProcess must be waited for by the thread that spawned it,
// because the child gets PR_SET_PDEATHSIG (it dies with that thread's process).
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace eval {

struct ExitStatus {
  bool exited = false;   // normal exit (then `code`), else killed by `signal`
  int code = 0, signal = 0;
  bool timed_out = false;
  std::string describe() const;  // "exit 3", "signal 6 (Aborted)", "timed out after 2.0 s"
};

class ChildProcess {
 public:
  // Starts argv[0] (PATH lookup) with stdout+stderr appended to `log_path` ("" = inherit).
  ChildProcess(const std::vector<std::string>& argv, const std::string& log_path);
  ~ChildProcess();  // kills the group if still running
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }
  int pidfd() const { return pidfd_; }  // readable once the child has exited (for poll)
  bool poll_exit();                     // true once exited; status() then valid
  void kill_group(int sig);             // signals the whole process group
  // SIGTERM, wait up to grace_s, SIGKILL, reap. Marks the status timed_out when asked.
  void terminate(double grace_s, bool timed_out);
  const ExitStatus& status() const { return status_; }
  bool running() const { return running_; }

 private:
  pid_t pid_ = -1;
  int pidfd_ = -1;
  bool running_ = false;
  ExitStatus status_;
};

struct CaptureResult {
  ExitStatus status;
  std::string out, err;
};

// Runs argv to completion (or kills its group at timeout_s) and captures stdout and stderr.
// Throws std::runtime_error only when the program cannot be started at all.
CaptureResult run_capture(const std::vector<std::string>& argv, double timeout_s);

}  // namespace eval
