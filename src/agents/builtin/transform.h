// The catalogue of source-to-source kernel transformations of the built-in agent. A Transform
// finds the sites where it applies in a kernel (each with a cheap legality pre-check; the
// harness's five-seed check catches the rest) and applies itself to one site of a parsed kernel.
// Sites are identified by the source line of their anchor statement plus parameters, so a site
// found on a kernel's text can be applied later to a fresh parse of the same text.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "loopnest/arg_spec.h"
#include "nki/ast.h"

namespace agents::builtin {

struct Site {
  std::string transform;                     // catalogue name, e.g. "hoist_invariant"
  std::map<std::string, std::string> params;  // always has "line"; more per transform
  std::string summary;                       // one human-readable line
  // A loop-nest site's engine families that the move relieves and those that wait on them
  // (loopnest::Site::relieves / feeds); empty for the AST rewrites. Not part of the key.
  std::set<std::string> relieves, feeds;
  // The engine families it makes run more instructions, with the ratio (loopnest::Site::adds).
  std::map<std::string, double> adds;

  std::string key() const;                   // "transform line=17 value=1024": identifies the site
  int line() const;
};

// The inverse of Site::key(); nullopt when `key` is not "NAME k=v ..." with a line parameter.
std::optional<Site> parse_site_key(const std::string& key);

class Transform {
 public:
  virtual ~Transform() = default;
  virtual std::string name() const = 0;
  virtual std::string description() const = 0;  // what it does and when it helps (one sentence)
  // The legal sites in `kernel` (the kernel function's body).
  virtual std::vector<Site> find(nki::Block& kernel) const = 0;
  // Applies `site`; throws RewriteError when the site does not match this kernel.
  virtual void apply(nki::Block& kernel, const Site& site) const = 0;
};

const std::vector<std::unique_ptr<Transform>>& catalogue();
const Transform* find_transform(const std::string& name);  // null when unknown

// All sites of every transform in `source` (empty when it does not parse or has no function to
// run). With the task's kernel arguments, a kernel that lifts to the loop-nest form gets the form's
// sites (loopnest_catalogue.h) in place of the AST rewrites the form covers. `entry`: the function
// of the file, as `eval --entry` names it ("" = the file's default: find_kernel).
// `nc_version`: the target the form is lifted for (nisa.get_nc_version(): 2 trn1, 3 trn2): a kernel
// branching on it is rewritten in the branch the run's target takes (nc_version_of(arch)).
std::vector<Site> find_sites(const std::string& source, const std::vector<loopnest::ArgSpec>& args = {},
                             const std::string& entry = "", int nc_version = 2);
// Parses `source`, applies `site` to the function `entry` names and prints the kernel back.
// Throws RewriteError (also, with `args`, when a source-level rewrite's result asserts something
// that fails at those shapes: a blocking factor that does not divide a trip count).
std::string apply_site(const std::string& source, const Site& site, const std::vector<loopnest::ArgSpec>& args = {},
                       const std::string& entry = "", int nc_version = 2);
// The NeuronCore generation of a target ("trn1" 2, "trn2" 3: trn::ArchConfig::nc_version); 2 for a
// name the simulator does not know (its evaluations fail on their own).
int nc_version_of(const std::string& arch);

// Factories (one file each, or grouped by theme).
std::unique_ptr<Transform> make_fuse_silu();
std::unique_ptr<Transform> make_fold_tensor_scalar();
std::unique_ptr<Transform> make_fold_into_activation();
std::unique_ptr<Transform> make_algebraic_simplify();
std::unique_ptr<Transform> make_fuse_activation_reduce();
std::unique_ptr<Transform> make_free_size();
std::unique_ptr<Transform> make_hoist_invariant();
std::unique_ptr<Transform> make_sink_recompute();
std::unique_ptr<Transform> make_interchange();
std::unique_ptr<Transform> make_fuse_loops();
std::unique_ptr<Transform> make_split_loop();
std::unique_ptr<Transform> make_engine_move();
std::unique_ptr<Transform> make_drop_psum_copy();
std::unique_ptr<Transform> make_transpose_choice();
std::unique_ptr<Transform> make_forward_scratch();
std::unique_ptr<Transform> make_hoist_load_loop();
std::unique_ptr<Transform> make_fuse_stages();            // softmax_transforms.cpp
std::unique_ptr<Transform> make_read_copy_source();
std::unique_ptr<Transform> make_defer_normalization();
std::unique_ptr<Transform> make_whole_row_reduce();
std::unique_ptr<Transform> make_fold_partitions();   // layout_transforms.cpp
std::unique_ptr<Transform> make_chunk_free_axis();
std::unique_ptr<Transform> make_unroll_jam();       // matmul_transforms.cpp
std::unique_ptr<Transform> make_reorder_reuse();
std::unique_ptr<Transform> make_pipeline_prep();

}  // namespace agents::builtin
