// The optimization memory: a queue of at most `capacity` experience items, newest first; adding
// to a full memory drops the oldest. It is saved to and loaded from a JSON file so that it carries
// over to other tasks and later runs (format in docs/optimize.md; tests in tests/unit/agents/memory_test.cpp).
#pragma once

#include <cstddef>
#include <deque>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "agents/types.h"

namespace agents {

class Memory {
 public:
  Memory() : Memory(16) {}
  explicit Memory(size_t capacity) : capacity_(capacity) {}

  // Adds `item` as the newest; drops the oldest items beyond the capacity.
  void add(ExperienceItem item);
  const std::deque<ExperienceItem>& items() const { return items_; }  // newest first
  size_t capacity() const { return capacity_; }
  void set_capacity(size_t capacity);
  size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }

 private:
  size_t capacity_;
  std::deque<ExperienceItem> items_;
};

nlohmann::json to_json(const ExperienceItem& item);
// Throws std::invalid_argument naming the field when a required field is missing or mistyped.
ExperienceItem experience_from_json(const nlohmann::json& j);

nlohmann::json to_json(const Memory& memory);
// Accepts the file object ({"format": "accelopt-memory", "version": 1, "items": [...]}).
// Items beyond `capacity` (the oldest, at the end) are dropped.
Memory memory_from_json(const nlohmann::json& j, size_t capacity);

// Loads a memory file; throws std::runtime_error "FILE: reason" on a missing or malformed file.
Memory load_memory(const std::string& path, size_t capacity);
// Writes atomically (temporary file + rename) so a kill never leaves a torn memory file.
void save_memory(const Memory& memory, const std::string& path);

}  // namespace agents
