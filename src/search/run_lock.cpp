#include "search/run_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <stdexcept>

#include <fmt/core.h>

namespace search {

namespace {

std::string holder_text() {
  char host[64] = {};
  ::gethostname(host, sizeof host - 1);
  auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M:%S UTC", std::gmtime(&now));
  return fmt::format("accelopt pid {} on {} since {}", ::getpid(), host, stamp);
}

std::string read_all(int fd) {
  std::string text;
  char buf[256];
  ssize_t n;
  ::lseek(fd, 0, SEEK_SET);
  while ((n = ::read(fd, buf, sizeof buf)) > 0) text.append(buf, static_cast<size_t>(n));
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return text;
}

}  // namespace

RunDirLock::RunDirLock(const std::string& run_dir) {
  std::string path = (std::filesystem::path(run_dir) / "lock").string();
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw std::runtime_error(fmt::format("{}: cannot open the run's lock file: {}", path, std::strerror(errno)));
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    int err = errno;
    std::string holder = read_all(fd_);
    ::close(fd_);
    fd_ = -1;
    if (err != EWOULDBLOCK)
      throw std::runtime_error(fmt::format("{}: cannot lock the run directory: {}", path, std::strerror(err)));
    throw std::runtime_error(fmt::format(
        "{} is in use by {} (lock file {}): one process at a time works in a run; wait for it to end or stop it",
        run_dir, holder.empty() ? "another process" : holder, path));
  }
  std::string text = holder_text() + "\n";
  if (::ftruncate(fd_, 0) == 0) {
    ::lseek(fd_, 0, SEEK_SET);
    ssize_t ignored = ::write(fd_, text.data(), text.size());  // only informs a refusal message
    (void)ignored;
  }
}

RunDirLock::~RunDirLock() {
  if (fd_ >= 0) ::close(fd_);  // closing the last descriptor releases the flock
}

}  // namespace search
