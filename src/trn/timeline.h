// Chrome trace-event JSON ("traceEvents", complete events) with one track per engine and DMA
// queue; opens in Perfetto or chrome://tracing. Events are written as they are scheduled, so the
// memory used does not grow with the trace.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace trn {

class TimelineWriter {
 public:
  // Throws std::runtime_error when the file cannot be created.
  explicit TimelineWriter(const std::string& path);
  ~TimelineWriter();
  TimelineWriter(const TimelineWriter&) = delete;
  TimelineWriter& operator=(const TimelineWriter&) = delete;

  // Names a track (a thread in the trace) once, before its first event.
  void name_track(int track, std::string_view name);
  void event(int track, std::string_view name, double start_ns, double duration_ns, uint32_t line);
  // Writes the closing bracket; called by the destructor too.
  void close();

 private:
  void separator();
  FILE* file_ = nullptr;
  bool first_ = true;
};

}  // namespace trn
