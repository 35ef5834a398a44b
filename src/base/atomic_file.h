// The one way accelopt replaces a file that someone may read at any moment (results, summaries,
// memory, report pages, reference-cache entries): write a temp file with a name no other writer
// uses (host, pid, a per-process counter) in the same directory, fsync it, rename it over the
// target. A reader sees the old file or the new one, never a torn one, and two writers racing on
// one path (two threads, two processes, two hosts on a shared file system) never share a temp.
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace base {

// Throws std::runtime_error naming the path and the reason; leaves no temp file behind.
void write_file_atomic(const std::string& path, std::string_view content);

// The same for content too large to hold twice in memory: `produce` hands it to the sink in pieces.
using ChunkSink = std::function<void(std::string_view)>;
void write_file_atomic_streamed(const std::string& path, const std::function<void(const ChunkSink&)>& produce);

// The temp name write_file_atomic uses next for `path` (exposed for the test of uniqueness).
std::string unique_temp_name(const std::string& path);

}  // namespace base
