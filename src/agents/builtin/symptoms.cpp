#include "agents/builtin/symptoms.h"

#include <algorithm>
#include <sstream>

namespace agents::builtin {

double busy_fraction(const trn::Profile& profile, const std::string& engine) {
  auto it = profile.engine_busy_ms.find(engine);
  if (it == profile.engine_busy_ms.end() || profile.latency <= 0) return 0;
  return std::min(1.0, it->second / profile.latency);
}

std::optional<double> space_wait_share(const trn::Profile& p) {
  if (!p.sbuf_space_wait_ms || p.latency <= 0) return std::nullopt;
  return std::min(1.0, *p.sbuf_space_wait_ms / p.latency);
}

Symptoms diagnose(const trn::Profile& p) {
  Symptoms s;
  if (p.spill_save_bytes + p.spill_reload_bytes > 0) s.insert("spill");
  double pe = busy_fraction(p, "pe"), act = busy_fraction(p, "act"), dve = busy_fraction(p, "dve"),
         pool = busy_fraction(p, "pool"), dma = busy_fraction(p, "dma");
  if (dma > 0.6) s.insert("dma_bound");
  if (act > 0.6) s.insert("act_busy");
  if (dve > 0.6) s.insert("dve_busy");
  if (pool > 0.6) s.insert("pool_busy");
  if (p.hardware_flops > 0 && pe < 0.3) s.insert("pe_idle");
  if (pe > 0.6) s.insert("pe_busy");
  double hi = std::max({act, dve, pool}), lo = std::min({act, dve, pool});
  if (hi > 0.4 && hi - lo > 0.35) s.insert("engine_imbalance");
  // Transfers spanning few partitions use few DMA engines: the queues stay busy longer than the
  // share of the fabric they hold (the two are equal when every transfer spans all partitions).
  auto ms = [&](const char* k) {
    auto it = p.engine_busy_ms.find(k);
    return it == p.engine_busy_ms.end() ? 0.0 : it->second;
  };
  if (dma > 0.2 && ms("dma_load") + ms("dma_store") > 1.25 * ms("dma")) s.insert("narrow_dma");
  // Nothing near saturation: the kernel waits on dependences or on-chip space, not on an engine.
  if (p.latency > 0 && std::max({pe, act, dve, pool, dma}) < 0.7) s.insert("latency_bound");
  // An engine free but its next instruction waiting for SBUF space (its own result's, or its
  // input's load's): a smaller footprint lets it start.
  if (auto share = space_wait_share(p); share && *share >= kSpaceBoundShare) s.insert("space_bound");
  // Instructions so short that their fixed cost (static overhead, DMA setup) matters: more than
  // one instruction per microsecond of kernel time.
  if (p.latency > 0 && static_cast<double>(p.instructions) / (p.latency * 1e3) > 1.0) s.insert("many_instructions");
  return s;
}

std::string to_string(const Symptoms& s) {
  if (s.empty()) return "none";
  std::string out;
  for (const auto& name : s) out += (out.empty() ? "" : ",") + name;
  return out;
}

Symptoms parse_symptoms(const std::string& text) {
  Symptoms s;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t\r\n.") + 1);
    if (!item.empty() && item != "none") s.insert(item);
  }
  return s;
}

double similarity(const Symptoms& a, const Symptoms& b) {
  if (a.empty() && b.empty()) return 1;
  size_t both = 0;
  for (const auto& x : a) both += b.count(x);
  return static_cast<double>(both) / static_cast<double>(a.size() + b.size() - both);
}

}  // namespace agents::builtin
