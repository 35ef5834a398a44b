#include "trn/timeline.h"

#include <stdexcept>

#include <fmt/format.h>

namespace trn {

TimelineWriter::TimelineWriter(const std::string& path) {
  file_ = std::fopen(path.c_str(), "w");
  if (!file_) throw std::runtime_error("cannot create timeline file '" + path + "'");
  std::fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n", file_);
}

TimelineWriter::~TimelineWriter() { close(); }

void TimelineWriter::separator() {
  if (!first_) std::fputs(",\n", file_);
  first_ = false;
}

void TimelineWriter::name_track(int track, std::string_view name) {
  if (!file_) return;
  separator();
  fmt::print(file_, R"({{"ph":"M","pid":1,"tid":{},"name":"thread_name","args":{{"name":"{}"}}}})",
             track, name);
  separator();
  fmt::print(file_, R"({{"ph":"M","pid":1,"tid":{},"name":"thread_sort_index","args":{{"sort_index":{}}}}})",
             track, track);
}

void TimelineWriter::event(int track, std::string_view name, double start_ns, double duration_ns,
                           uint32_t line) {
  if (!file_) return;
  separator();
  // Chrome trace times are microseconds.
  fmt::print(file_, R"({{"ph":"X","pid":1,"tid":{},"name":"{}","ts":{:.4f},"dur":{:.4f},"args":{{"line":{}}}}})",
             track, name, start_ns / 1000.0, duration_ns / 1000.0, line);
}

void TimelineWriter::close() {
  if (!file_) return;
  std::fputs("\n]}\n", file_);
  std::fclose(file_);
  file_ = nullptr;
}

}  // namespace trn
