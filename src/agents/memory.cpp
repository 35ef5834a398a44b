#include "agents/memory.h"

#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "base/atomic_file.h"

namespace agents {

namespace {

constexpr const char* kFormat = "accelopt-memory";
constexpr int kVersion = 1;

template <class T>
T required(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end()) throw std::invalid_argument(fmt::format("memory item: missing field '{}'", key));
  try {
    return it->get<T>();
  } catch (const nlohmann::json::exception&) {
    throw std::invalid_argument(fmt::format("memory item: field '{}' has the wrong type", key));
  }
}

template <class T>
T optional_field(const nlohmann::json& j, const char* key, T fallback) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  try {
    return it->get<T>();
  } catch (const nlohmann::json::exception&) {
    throw std::invalid_argument(fmt::format("memory item: field '{}' has the wrong type", key));
  }
}

}  // namespace

void Memory::add(ExperienceItem item) {
  items_.push_front(std::move(item));
  while (items_.size() > capacity_) items_.pop_back();
}

void Memory::set_capacity(size_t capacity) {
  capacity_ = capacity;
  while (items_.size() > capacity_) items_.pop_back();
}

nlohmann::json to_json(const ExperienceItem& item) {
  return {{"task", item.task},           {"round", item.round},
          {"kind", item.positive ? "positive" : "negative"},
          {"speedup", item.speedup},     {"plan", item.plan},
          {"key_change", item.key_change}, {"lesson", item.lesson},
          {"slow_code", item.slow_code}, {"fast_code", item.fast_code}};
}

ExperienceItem experience_from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw std::invalid_argument("memory item: expected an object");
  ExperienceItem item;
  item.task = optional_field<std::string>(j, "task", "");
  item.round = optional_field<int>(j, "round", 0);
  std::string kind = optional_field<std::string>(j, "kind", "positive");
  if (kind != "positive" && kind != "negative")
    throw std::invalid_argument(fmt::format("memory item: kind '{}' is not positive or negative", kind));
  item.positive = kind == "positive";
  item.speedup = optional_field<double>(j, "speedup", 0.0);
  item.plan = optional_field<std::string>(j, "plan", "");
  item.key_change = required<std::string>(j, "key_change");
  item.lesson = required<std::string>(j, "lesson");
  item.slow_code = optional_field<std::string>(j, "slow_code", "");
  item.fast_code = optional_field<std::string>(j, "fast_code", "");
  return item;
}

nlohmann::json to_json(const Memory& memory) {
  nlohmann::json items = nlohmann::json::array();
  for (const auto& item : memory.items()) items.push_back(to_json(item));
  return {{"format", kFormat}, {"version", kVersion}, {"capacity", memory.capacity()}, {"items", items}};
}

Memory memory_from_json(const nlohmann::json& j, size_t capacity) {
  if (!j.is_object() || j.value("format", "") != kFormat)
    throw std::invalid_argument(fmt::format("not an accelopt memory file (expected \"format\": \"{}\")", kFormat));
  if (j.value("version", 0) != kVersion)
    throw std::invalid_argument(fmt::format("unsupported memory file version {}", j.value("version", 0)));
  auto it = j.find("items");
  if (it == j.end() || !it->is_array()) throw std::invalid_argument("memory file: 'items' must be an array");
  Memory memory(capacity);
  // The file lists newest first; adding oldest first rebuilds the same order.
  for (auto item = it->rbegin(); item != it->rend(); ++item) memory.add(experience_from_json(*item));
  return memory;
}

Memory load_memory(const std::string& path, size_t capacity) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot open memory file", path));
  std::stringstream text;
  text << in.rdbuf();
  try {
    return memory_from_json(nlohmann::json::parse(text.str()), capacity);
  } catch (const nlohmann::json::parse_error& e) {
    throw std::runtime_error(fmt::format("{}: invalid JSON: {}", path, e.what()));
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(fmt::format("{}: {}", path, e.what()));
  }
}

void save_memory(const Memory& memory, const std::string& path) {
  base::write_file_atomic(path, to_json(memory).dump(2) + "\n");
}

}  // namespace agents
