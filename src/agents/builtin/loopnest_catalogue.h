// The loop-nest transformations (src/loopnest) as sites of the built-in agent's catalogue. A
// kernel that lifts to the loop-nest form gets its folds, engine moves, tile sizes and fusions
// from the form, whatever style it is written in; the AST rewrites the form covers are then left
// out (kRetiredByForm). A site's parameters carry the style-independent anchor of the form
// (`anchor=32x7x2/act(exp)#0`) next to the source line, so memory and failure records of a site
// match the same op in another style.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "agents/builtin/transform.h"
#include "loopnest/arg_spec.h"

namespace agents::builtin {

// AST rewrites left out when the kernel lifts: the form offers their sites (in any style), or they
// find sites only in some styles of a nest.
const std::set<std::string>& retired_by_form();
// Whether one AST site is a move the form offers on this kernel (`form_transforms`: those with sites).
bool covered_by_form(const Site& site, const std::set<std::string>& form_transforms);

bool is_loopnest_transform(const std::string& name);
std::string loopnest_description(const std::string& name);
// What the site's transformation does: the form's description for a form site (it carries an
// anchor), the AST rewrite's otherwise; free_size and reorder_reuse exist under one name in both.
std::string site_description(const Site& site);

// The form's sites, or nullopt when the kernel does not lift (then the AST rewrites apply alone).
// `nc_version`: the target the kernel is lifted for (what nisa.get_nc_version() returns: 2 trn1, 3 trn2).
std::optional<std::vector<Site>> loopnest_sites(const std::string& source, const std::vector<loopnest::ArgSpec>& args,
                                                const std::string& entry = "", int nc_version = 2);
// Applies a form site. Throws RewriteError when it does not apply or cannot be printed back.
std::string apply_loopnest_site(const std::string& source, const Site& site, const std::vector<loopnest::ArgSpec>& args,
                                const std::string& entry = "", int nc_version = 2);

}  // namespace agents::builtin
