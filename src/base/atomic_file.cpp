#include "base/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <stdexcept>

#include <fmt/core.h>

namespace base {

namespace {

void write_all(int fd, std::string_view content, const std::string& path) {
  size_t done = 0;
  while (done < content.size()) {
    ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw std::runtime_error(fmt::format("cannot write '{}': {}", path, std::strerror(errno)));
    done += static_cast<size_t>(n);
  }
}

}  // namespace

std::string unique_temp_name(const std::string& path) {
  static std::atomic<uint64_t> counter{0};
  char host[64] = {};
  ::gethostname(host, sizeof host - 1);
  return fmt::format("{}.tmp.{}.{}.{}", path, host, ::getpid(), counter.fetch_add(1));
}

void write_file_atomic(const std::string& path, std::string_view content) {
  write_file_atomic_streamed(path, [&](const ChunkSink& sink) { sink(content); });
}

void write_file_atomic_streamed(const std::string& path, const std::function<void(const ChunkSink&)>& produce) {
  std::string tmp = unique_temp_name(path);
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error(fmt::format("cannot create '{}': {}", tmp, std::strerror(errno)));
  try {
    produce([&](std::string_view chunk) { write_all(fd, chunk, tmp); });
    if (::fsync(fd) != 0) throw std::runtime_error(fmt::format("cannot fsync '{}': {}", tmp, std::strerror(errno)));
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  ::close(fd);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    throw std::runtime_error(fmt::format("cannot replace '{}': {}", path, std::strerror(err)));
  }
}

}  // namespace base
