#include "eval/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <thread>

#include <fmt/core.h>

namespace eval {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

ExitStatus decode(int wstatus) {
  ExitStatus s;
  if (WIFEXITED(wstatus)) {
    s.exited = true;
    s.code = WEXITSTATUS(wstatus);
  } else if (WIFSIGNALED(wstatus)) {
    s.signal = WTERMSIG(wstatus);
  }
  return s;
}

// In the child between fork and exec: only async-signal-safe calls.
[[noreturn]] void exec_child(const std::vector<char*>& argv, int out_fd, int err_fd, int report_fd,
                             pid_t parent) {
  ::setpgid(0, 0);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(127);  // parent already gone: do not run orphaned
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::signal(SIGINT, SIG_DFL);
  ::signal(SIGTERM, SIG_DFL);
  ::signal(SIGPIPE, SIG_DFL);
  int devnull = ::open("/dev/null", O_RDONLY);
  if (devnull >= 0) ::dup2(devnull, 0);
  if (out_fd >= 0) ::dup2(out_fd, 1);
  if (err_fd >= 0) ::dup2(err_fd, 2);
  ::execvp(argv[0], argv.data());
  int err = errno;
  (void)!::write(report_fd, &err, sizeof err);
  ::_exit(127);
}

// Forks and execs; returns the pid, or throws with the exec error (reported over a CLOEXEC pipe).
pid_t spawn(const std::vector<std::string>& args, int out_fd, int err_fd) {
  if (args.empty()) throw std::runtime_error("cannot start a process: empty command");
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  int report[2];
  if (::pipe2(report, O_CLOEXEC) != 0) throw std::runtime_error(fmt::format("pipe: {}", std::strerror(errno)));
  pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) {
    ::close(report[0]);
    ::close(report[1]);
    throw std::runtime_error(fmt::format("cannot fork to run '{}': {}", args[0], std::strerror(errno)));
  }
  if (pid == 0) exec_child(argv, out_fd, err_fd, report[1], parent);
  ::setpgid(pid, pid);  // also in the parent: no race with kill_group right after spawn
  ::close(report[1]);
  int child_err = 0;
  ssize_t n;
  do n = ::read(report[0], &child_err, sizeof child_err); while (n < 0 && errno == EINTR);
  ::close(report[0]);
  if (n == sizeof child_err) {
    ::waitpid(pid, nullptr, 0);
    throw std::runtime_error(fmt::format("cannot run '{}': {}", args[0], std::strerror(child_err)));
  }
  return pid;
}

}  // namespace

std::string ExitStatus::describe() const {
  std::string base = exited ? fmt::format("exit {}", code)
                            : fmt::format("signal {} ({})", signal, ::strsignal(signal));
  return timed_out ? "timed out (" + base + ")" : base;
}

ChildProcess::ChildProcess(const std::vector<std::string>& argv, const std::string& log_path) {
  int log_fd = -1;
  if (!log_path.empty()) {
    log_fd = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (log_fd < 0) throw std::runtime_error(fmt::format("cannot open log '{}': {}", log_path, std::strerror(errno)));
  }
  try {
    pid_ = spawn(argv, log_fd, log_fd);
  } catch (...) {
    if (log_fd >= 0) ::close(log_fd);
    throw;
  }
  if (log_fd >= 0) ::close(log_fd);
  running_ = true;
  pidfd_ = static_cast<int>(::syscall(SYS_pidfd_open, pid_, 0));
}

ChildProcess::~ChildProcess() {
  if (running_) terminate(0.5, false);
  if (pidfd_ >= 0) ::close(pidfd_);
}

bool ChildProcess::poll_exit() {
  if (!running_) return true;
  int wstatus = 0;
  pid_t r = ::waitpid(pid_, &wstatus, WNOHANG);
  if (r == 0) return false;
  running_ = false;
  if (r == pid_) status_ = decode(wstatus);
  // The worker may have left grandchildren (an external profiler): take the group down with it.
  ::kill(-pid_, SIGKILL);
  return true;
}

void ChildProcess::kill_group(int sig) {
  if (pid_ > 0) ::kill(-pid_, sig);
}

void ChildProcess::terminate(double grace_s, bool timed_out) {
  if (running_) {
    kill_group(SIGTERM);
    auto start = Clock::now();
    while (!poll_exit() && seconds_since(start) < grace_s) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    if (running_) {
      kill_group(SIGKILL);
      int wstatus = 0;
      while (::waitpid(pid_, &wstatus, 0) < 0 && errno == EINTR) {
      }
      running_ = false;
      status_ = decode(wstatus);
    }
  }
  if (timed_out) status_.timed_out = true;
}

CaptureResult run_capture(const std::vector<std::string>& argv, double timeout_s) {
  int out_pipe[2], err_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) throw std::runtime_error(fmt::format("pipe: {}", std::strerror(errno)));
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) {
    ::close(out_pipe[0]);
    ::close(out_pipe[1]);
    throw std::runtime_error(fmt::format("pipe: {}", std::strerror(errno)));
  }
  pid_t pid;
  try {
    pid = spawn(argv, out_pipe[1], err_pipe[1]);
  } catch (...) {
    for (int fd : {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]}) ::close(fd);
    throw;
  }
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  CaptureResult result;
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  int open_fds = 2;
  auto start = Clock::now();
  bool timed_out = false;
  while (open_fds > 0) {
    double left = timeout_s - seconds_since(start);
    if (left <= 0) {
      timed_out = true;
      break;
    }
    int r = ::poll(fds, 2, static_cast<int>(left * 1000) + 1);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) continue;
    for (int idx = 0; idx < 2; ++idx) {
      if (fds[idx].fd < 0 || !(fds[idx].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buf[4096];
      ssize_t n = ::read(fds[idx].fd, buf, sizeof buf);
      if (n > 0) {
        sinks[idx]->append(buf, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        ::close(fds[idx].fd);
        fds[idx].fd = -1;
        --open_fds;
      }
    }
  }
  for (auto& f : fds)
    if (f.fd >= 0) ::close(f.fd);
  ::kill(-pid, SIGKILL);  // timed out, or grandchildren left behind: the group goes
  int wstatus = 0;
  while (::waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
  }
  result.status = decode(wstatus);
  result.status.timed_out = timed_out;
  return result;
}

}  // namespace eval
