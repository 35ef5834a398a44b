// Shared machinery of the transformations (private to src/agents/builtin/): a transform that
// finds and applies its sites with one matcher, so `find` and `apply` can never disagree.
#pragma once

#include <functional>
#include <string>

#include <fmt/core.h>

#include "agents/builtin/ast_edit.h"
#include "agents/builtin/transform.h"

namespace agents::builtin {

using Action = std::function<void()>;
// Receives each matching site with the action that applies it; returns true when the matcher
// must stop at once (the action ran and the AST changed under it).
using SiteSink = std::function<bool(Site, const Action&)>;

class MatchingTransform : public Transform {
 public:
  std::vector<Site> find(nki::Block& kernel) const override;
  void apply(nki::Block& kernel, const Site& site) const override;

 protected:
  // Reports every site to `sink`; returns true when the sink asked to stop.
  virtual bool visit(nki::Block& kernel, const SiteSink& sink) const = 0;
};

// Visits `b` and every nested block until `fn` returns true; returns whether it did.
bool visit_blocks(nki::Block& b, const std::function<bool(nki::Block&)>& fn);

Site make_site(const nki::Stmt& anchor, std::string summary, std::map<std::string, std::string> extra = {});
std::string format_number(double v);  // a Python float literal (always with '.' or 'e')
nki::ExprPtr number_expr(double v);
// Removes block[index] (keeps nothing of it); indices after it shift down.
void erase_stmt(nki::Block& block, size_t index);
// Index of the next statement after `from` in `block` that mentions `id`, or block.size().
size_t next_use(nki::Block& block, size_t from, const std::string& id);
// Short one-line rendering of a statement for summaries.
std::string brief(nki::Stmt& s);

}  // namespace agents::builtin
