#include "agents/agent_registry.h"

#include <map>
#include <mutex>

namespace agents {

namespace {

std::map<std::string, AgentFactory>& factories() {
  static std::map<std::string, AgentFactory> map;
  return map;
}
std::mutex registry_mutex;

}  // namespace

void register_agent_kind(const std::string& name, AgentFactory factory) {
  std::lock_guard lock(registry_mutex);
  factories()[name] = std::move(factory);
}

const AgentFactory* find_agent_kind(const std::string& name) {
  std::lock_guard lock(registry_mutex);
  auto it = factories().find(name);
  return it == factories().end() ? nullptr : &it->second;
}

std::vector<std::string> agent_kinds() {
  std::lock_guard lock(registry_mutex);
  std::vector<std::string> names;
  for (const auto& [name, factory] : factories()) names.push_back(name);
  return names;
}

}  // namespace agents
