// The printer's internals (private to src/loopnest; emit.h is the interface): the class that
// prints a kernel's form back over its source, its members split by job across
//   emit.cpp         the file around the kernel's body (imports, decorator, the lines kept as they
//                    are, helpers the body no longer calls left out),
//   emit_block.cpp   the body's nodes: statements and loop headers copied as written or printed from the form,
//   emit_call.cpp    a statement printed from the form: its calls, operands and symbols,
//   emit_access.cpp  an access, in the author's text (dims a move left, `nl.ds`, index grids) where it can.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "loopnest/emit.h"
#include "loopnest/form.h"
#include "loopnest/grid_names.h"
#include "nki/ast_walk.h"  // last_line

namespace loopnest::detail {

using namespace nki;

std::vector<std::string> split_lines(const std::string& text);
size_t indent_of(const std::string& line);

class Emitter {
 public:
  Emitter(const Kernel& k, const EmitOptions& o);
  std::string run();

 private:
  std::string missing_imports();
  std::string indented(const std::string& lines) const;
  uint32_t undecorated_def_line() const;
  std::string line(uint32_t l) const { return l >= 1 && l <= lines_.size() ? lines_[l - 1] : ""; }
  // A destination a move rewrote, spelled as the lift read it where it can (Op::dst_written).
  std::string dst_text(const Op& op) { return access(*op.dst, true, op.dst_written, op.dst_written_access.get()); }
  // The source of an unchanged expression (null when regenerating everything).
  const Expr* kept(const Expr* e) const { return o_.regenerate ? nullptr : e; }

  // emit_block.cpp
  void index_leading(const Block& b, uint32_t prev);
  std::optional<uint32_t> else_line(const IfStmt& i) const;
  std::string indent(int depth) const;
  std::string renamed(const std::string& text) const;
  void copy(uint32_t from, uint32_t to, uint32_t anchor, int depth, std::string& out) const;
  void leading(const Node& n, int depth, std::string& out) const;
  void block(const std::vector<Node>& nodes, int depth, std::string& out);
  void node(const Node& n, int depth, std::string& out);
  void emit_node(const Node& n, int depth, std::string& out);
  bool elif_of(const IfStmt& i) const;
  void if_header(const Node& n, int depth, std::string& out);
  void guard_continue(const Node& n, int depth, std::string& out);
  bool walrus(const Stmt& s) const;
  void copy_block(const Block& b, int depth, std::string& out) const;
  // emit_rolled.cpp: a comprehension lifted as its loop (lift_rolled.cpp).
  void rolled_loop(const Node& n, int depth, std::string& out);
  bool rolled_item(const Node& n) const;
  bool fresh_tiles_list(const Node& n, int depth, std::string& out);
  // emit_list_display.cpp: the items of a list made in one statement printed as its display.
  size_t list_display(const std::vector<Node>& nodes, size_t j, int depth, bool force, std::string& out);
  // A loop over a list's items (item_loop.h) changed anywhere: header and body from the form.
  bool untouched_loop(const Node& n) const;
  void regenerated_loop(const Node& n, int depth, std::string& out);
  // emit_nested_rolled.cpp: a nested comprehension lifted as its loop nest (lift_nested_rolled.cpp).
  static const ComprehensionExpr* nested_comprehension_of(const Stmt* s);
  std::string rolled_generator(const Comprehension& g, const Node& loop_node);
  bool nested_rolled_loop(const Node& n, int depth, std::string& out);

  // emit_helper_edits.cpp: the statements a move changed inside the body of a helper whose calls
  // print as written (helper_bodies.h), each printed once in that body.
  void collect_helper_edits();
  std::string helper_statement(const Node& n);
  // The text of source line `l` as printed: the line itself, or the first line of an edited
  // statement (its indentation kept) with `l` moved to the statement's last line.
  std::string edited_line(uint32_t& l) const;

  // emit_call.cpp
  std::string str(const IExpr& e) const;
  std::string statement(const Node& n);
  std::string call(const Op& op, const Node& n);
  std::optional<std::string> operator_text(const Op& op, const Node& n);
  std::string operator_operand(const Operand& o, const Node& n, std::string_view symbol);
  std::string operand(const Operand& o, const Node& n);
  std::string shape_text(const Tensor& t, const Op& op);
  std::string mask_text(const Op& op);
  std::string loop_header(const Loop& l);
  std::string alias(const std::string& module);
  std::string api_text(const std::string& api);
  std::string symbol_text(const std::string& s);
  std::string index_text(const Operand& o);
  std::string bool_text(const IExpr& e);
  std::string number_text(const Operand& o);
  std::string view_binding(const Access& a, const std::string& name);
  std::string reshape_text(const Tensor& t);
  std::string tensor_text(const Tensor& t);

  // emit_access.cpp
  std::string access(const Access& a, bool write = false, const Expr* written = nullptr, const Access* old = nullptr);
  std::string list_element(const Tensor& t, const Access& rest, bool write);
  static bool whole_dims(const std::vector<DimIndex>& dims, const std::vector<IExpr>& shape);
  static bool backward_stop(const DimIndex& d, const AxisTerm& term);
  static bool affine(const Access& a);
  // `dense`: the constant tile shape of the index being printed (empty: none known), where an
  // author's `nl.mgrid` name stands for an axis's grid (dense_grid_key).
  std::string grid_text(const DimIndex& g, size_t rank, const std::vector<int64_t>& dense = {});
  std::string grid_term(const AxisTerm& t, size_t rank, const std::vector<int64_t>& dense);
  static std::vector<int64_t> dense_shape(const std::vector<IExpr>& shape);
  std::vector<const Expr*> written_elements(const Access& a, const std::string& name, const Expr* written,
                                            const Access* old) const;
  std::vector<const Expr*> written_dims(const Operand& o, size_t rank) const;
  bool same_dim(const DimIndex& now, const DimIndex& was) const;
  std::string ds_callee(const Expr* e) const;
  std::string span_text(const Span& s) const;
  static bool same_code(const std::string& a, const std::string& b);
  std::string source(const Expr& e) const;

  const Kernel& k_;
  EmitOptions o_;
  std::vector<std::string> lines_;
  uint32_t first_ = 1, end_ = 0;
  uint32_t imports_after_ = 0;  // the file's last top-level import line before the kernel (0: none)
  std::string base_;
  std::map<const Stmt*, uint32_t> leading_;
  std::set<std::string> needed_;
  bool tail_ = false;  // the node being printed is the last its loop runs (block)
  bool header_as_written_ = true;  // the loop around the node printed its header as the author wrote it
  const Node* elif_node_ = nullptr;  // the if node being printed as the `elif` of the one before
  std::map<int, std::vector<GridName>> grid_bindings_;  // the author's grid names, by binding node
  std::map<std::string, std::string> grid_names_;  // grid_key -> name, once its binding is printed
  std::map<int, std::string> program_ids_;  // loop id -> `nl.program_id(d)` (Kernel::grid)
  std::vector<std::map<std::string, std::string>> renames_;
  std::map<uint32_t, std::pair<uint32_t, std::string>> edits_;  // a helper statement's first line -> (last line, new text)
};

}  // namespace loopnest::detail
