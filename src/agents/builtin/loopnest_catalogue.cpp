#include "agents/builtin/loopnest_catalogue.h"

#include <fmt/core.h>

#include "agents/builtin/ast_edit.h"
#include "loopnest/lift.h"
#include "loopnest/transform.h"

namespace agents::builtin {

const std::set<std::string>& retired_by_form() {
  static const std::set<std::string> retired = {"fuse_silu", "fold_tensor_scalar", "fold_into_activation", "engine_move",
                                                "fuse_loops", "fuse_activation_reduce", "whole_row_reduce",
                                                "unroll_jam", "interchange", "hoist_load_loop", "fold_partitions",
                                                "chunk_free_axis", "defer_normalization", "pipeline_prep", "forward_scratch"};
  return retired;
}

bool is_loopnest_transform(const std::string& name) { return loopnest::find_transform(name) != nullptr; }

std::string loopnest_description(const std::string& name) {
  const loopnest::Transform* t = loopnest::find_transform(name);
  return t ? t->description() : name;
}

std::string site_description(const Site& site) {
  if (site.params.count("anchor") && is_loopnest_transform(site.transform)) return loopnest_description(site.transform);
  const Transform* t = find_transform(site.transform);
  return t ? t->description() : loopnest_description(site.transform);
}

std::optional<std::vector<Site>> loopnest_sites(const std::string& source, const std::vector<loopnest::ArgSpec>& args) {
  loopnest::Kernel k;
  try {
    k = loopnest::lift_source("kernel.py", source, args);
  } catch (const loopnest::LiftError&) {
    return std::nullopt;
  }
  std::vector<Site> out;
  for (const auto& s : loopnest::find_sites(k)) {
    Site site;
    site.transform = s.transform;
    site.params = s.params;
    site.params["anchor"] = s.anchor;
    site.params["line"] = std::to_string(s.line);
    site.summary = s.summary;
    out.push_back(std::move(site));
  }
  return out;
}

std::string apply_loopnest_site(const std::string& source, const Site& site, const std::vector<loopnest::ArgSpec>& args) {
  loopnest::Site s;
  s.transform = site.transform;
  for (const auto& [k, v] : site.params)
    if (k != "anchor" && k != "line") s.params[k] = v;
  auto anchor = site.params.find("anchor");
  if (anchor == site.params.end()) throw RewriteError("a loop-nest site without its anchor");
  s.anchor = anchor->second;
  try {
    return loopnest::apply_site("kernel.py", source, args, s);
  } catch (const loopnest::LiftError& e) {
    throw RewriteError(e.render());
  } catch (const loopnest::TransformError& e) {
    throw RewriteError(e.what());
  }
}

}  // namespace agents::builtin
