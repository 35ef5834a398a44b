// One process at a time in a run directory. Two `optimize --resume` of one run both ran before
// (11 checkpoints instead of 6, each overwriting the other's outputs); now the second refuses,
// naming the holder.
#pragma once

#include <string>

namespace search {

// Holds RUN_DIR/lock (flock, exclusive) while the object lives. The file names the holder (pid,
// host, start time) for the refusal message. The kernel drops the lock when the process ends,
// however it ends (kill -9 included): there is never a stale lock to clean up.
class RunDirLock {
 public:
  // Throws std::runtime_error "RUN_DIR is in use by accelopt pid P on HOST since T ..." when
  // another process holds it, or naming the reason when the lock file cannot be opened.
  explicit RunDirLock(const std::string& run_dir);
  ~RunDirLock();
  RunDirLock(const RunDirLock&) = delete;
  RunDirLock& operator=(const RunDirLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace search
