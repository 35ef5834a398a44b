#include "loopnest/dump.h"

#include <cmath>
#include <map>
#include <set>

#include <fmt/core.h>

#include "loopnest/analysis.h"

namespace loopnest {

namespace {

std::string number_text(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e15) return fmt::format("{:.1f}", v);
  return fmt::format("{}", v);
}

class Dumper {
 public:
  explicit Dumper(const Kernel& k) : k_(k) {
    name_all();
    for (const auto& [id, loop] : k_.loops) carried_[id] = carried_tensors(k_, id);
  }

  std::string run() {
    std::string out = "kernel " + k_.name + "(";
    for (size_t i = 0; i < k_.params.size(); ++i) {
      const Param& p = k_.params[i];
      out += i ? ", " : "";
      if (p.tensor >= 0) out += fmt::format("{}: {}", p.name, type_text(k_.tensor(p.tensor)));
      else out += fmt::format("{} = {}", p.name, p.scalar ? number_text(*p.scalar) : "?");
    }
    out += ")\n";
    for (int id : order_) {
      const Tensor& t = k_.tensor(id);
      if (t.role == TensorRole::Argument) continue;
      out += fmt::format("tensor {}: {} {}", names_.at(id), type_text(t), to_string(t.role));
      if (!t.label.empty()) out += fmt::format(" '{}'", t.label);
      if (t.role == TensorRole::View) out += " of " + names_.at(t.base);
      if (t.scope_loop >= 0 && t.on_chip()) out += " per " + k_.var_name(t.scope_loop);
      // A list of lists of None filled by item assignment (lift_none_list.cpp) has levels over no loop.
      for (const auto& [name, loop] : t.outer_lists)
        out += loop >= 0 ? fmt::format(" list '{}' over {} of", name, k_.var_name(loop)) : fmt::format(" list '{}' of", name);
      if (t.host_list && t.list_loop < 0 && !t.outer_lists.empty()) out += fmt::format(" list '{}'", t.list_name);
      if (t.list_loop >= 0) out += fmt::format(" list '{}' over {}", t.list_name, k_.var_name(t.list_loop));
      // Read and rewritten by every iteration of these loops (analysis.h): the dependence the moves respect.
      for (const auto& [loop, carried] : carried_)
        if (carried.count(id)) out += " carried by " + k_.var_name(loop);
      out += "\n";
    }
    // The launch grid's loops around the body (kernels launched on a grid, form.h).
    int depth = 0;
    for (int l : k_.grid) {
      out += fmt::format("{}for {} in {}({}):\n", std::string(static_cast<size_t>(depth) * 2, ' '), k_.var_name(l),
                         to_string(k_.loops.at(l).kind), k_.str(k_.loops.at(l).stop));
      ++depth;
    }
    block(k_.body, depth, out);
    return out;
  }

  std::string access(const Access& a) const {
    std::string name = names_.count(a.tensor) ? names_.at(a.tensor) : "?";
    if (accesses_whole(k_, a)) return name;
    std::string out = name + "[";
    for (size_t d = 0; d < a.dims.size(); ++d) {
      const DimIndex& di = a.dims[d];
      std::string s;
      bool zero = di.start.is_constant() && di.start.constant() == 0;
      if (!zero || di.terms.empty()) s = k_.str(di.start);
      for (const auto& t : di.terms) {
        std::string term = fmt::format("a{}[{}]", t.axis, k_.str(t.size));
        if (t.div != 1) term = fmt::format("{} // {}", term, t.div);
        if (t.mod != 0) term = t.div != 1 ? fmt::format("({}) % {}", term, t.mod) : fmt::format("{} % {}", term, t.mod);
        if (t.stride != 1 && !t.affine()) term = "(" + term + ")";
        if (t.stride != 1) term = fmt::format("{}*{}", t.stride, term);
        s += s.empty() ? term : " + " + term;
      }
      out += (d ? ", " : "") + s;
    }
    return out + "]";
  }

 private:
  std::string type_text(const Tensor& t) const {
    std::string dims;
    for (size_t d = 0; d < t.shape.size(); ++d) {
      std::string sep = d == 0 ? "" : (t.on_chip() && static_cast<int>(d) == t.partition_dim ? " | " : ", ");
      dims += sep + k_.str(t.shape[d]);
    }
    return fmt::format("{} {}[{}]", to_string(t.memory), t.dtype.empty() ? "?" : t.dtype, dims);
  }

  void note(int id) {
    if (id < 0 || names_.count(id)) return;
    const Tensor& t = k_.tensor(id);
    if (t.role == TensorRole::View) note(t.base);
    std::string base = t.name.empty() ? fmt::format("%{}", ++anonymous_) : t.name;
    std::string name = base;
    for (int n = 2; taken_.count(name); ++n) name = fmt::format("{}#{}", base, n);
    taken_.insert(name);
    names_[id] = name;
    order_.push_back(id);
  }

  void note_op(const Op& op) {
    for (const auto& a : op.args)
      if (a.value.kind == Operand::Kind::Tile) note(a.value.access.tensor);
    if (op.dst) note(op.dst->tensor);
  }

  void name_all() {
    for (const auto& p : k_.params) note(p.tensor);
    for_each_node(k_.body, [&](const Node& n, const std::vector<int>&) {
      for (const auto& op : n.ops) note_op(op);
    });
    for (int id : k_.outputs) note(id);
  }

  std::string number(const Operand& o) const {
    if (o.integer) return fmt::format("{}", static_cast<int64_t>(o.number));
    return o.number_type.empty() ? number_text(o.number) : fmt::format("{}({})", o.number_type, number_text(o.number));
  }

  std::string operand(const Operand& o) const {
    switch (o.kind) {
      case Operand::Kind::Tile:
        if (o.number_when) return fmt::format("({} if {} else {})", number(o), k_.str(*o.number_when), access(o.access));
        return access(o.access);
      case Operand::Kind::Number: return number(o);
      case Operand::Kind::Symbol: {
        auto colon = o.symbol.find(':');
        return colon == std::string::npos || o.symbol.rfind("engine:", 0) == 0 ? o.symbol : o.symbol.substr(colon + 1);
      }
      case Operand::Kind::Shape: {
        std::string s = "(";
        for (size_t i = 0; i < o.shape.size(); ++i) s += (i ? ", " : "") + k_.str(o.shape[i]);
        return s + (o.shape.size() == 1 ? ",)" : ")");
      }
      case Operand::Kind::None: return "None";
      case Operand::Kind::Other: return o.text;
      case Operand::Kind::Index: return (o.number_type.empty() ? "" : o.number_type + " ") + k_.str(o.index);
      case Operand::Kind::Grid: {
        std::string s = "grid(" + k_.str(o.grid.start);
        for (const auto& t : o.grid.terms) {
          s += fmt::format(" + {}*a{}[{}]", t.stride, t.axis, k_.str(t.size));
          if (t.div != 1) s += fmt::format("//{}", t.div);
          if (t.mod != 0) s += fmt::format("%{}", t.mod);
        }
        return s + fmt::format(", rank {})", o.grid_rank);
      }
    }
    return "?";
  }

  std::string mask_text(const Op& op) const {
    std::string s;
    for (const auto& c : op.mask) {
      std::string e = c.expr.is_constant() && c.expr.constant() == 0 && !c.axes.empty() ? "" : k_.str(c.expr);
      for (const auto& [axis, coeff] : c.axes) {
        if (coeff == 0) continue;
        std::string term = std::llabs(coeff) == 1 ? fmt::format("a{}", axis) : fmt::format("{}*a{}", std::llabs(coeff), axis);
        if (e.empty()) e = coeff < 0 ? "-" + term : term;
        else e += (coeff < 0 ? " - " : " + ") + term;
      }
      s += (s.empty() ? "" : " & ") + fmt::format("{} {} 0", e, symbol(c.cmp));
    }
    return s;
  }

  std::string op_text(const Op& op) const {
    std::string lhs;
    if (op.result >= 0) lhs = names_.at(op.result) + " = ";
    else if (op.dst && op.cls != OpClass::Store && op.cls != OpClass::Alloc && op.cls != OpClass::Memset)
      lhs = access(*op.dst) + (op.accumulate ? " += " : " = ");
    else if (op.dst && (op.cls == OpClass::Alloc || op.cls == OpClass::Memset))
      lhs = access(*op.dst) + " = ";
    std::string call = op.api + "(";
    bool first = true;
    if (op.cls == OpClass::Store && op.dst) {
      call += "dst=" + access(*op.dst);
      first = false;
    }
    for (const auto& a : op.args) {
      if (a.name == "mask" || a.name == "engine" || a.name == "name") continue;
      if (a.name == "dtype" || a.name == "buffer" || a.name == "shape") {
        if (op.cls != OpClass::Alloc && op.cls != OpClass::Memset && a.name != "dtype") continue;
      }
      call += (first ? "" : ", ") + a.name + "=" + operand(a.value);
      first = false;
    }
    call += ")";
    std::string out = lhs + call;
    if (op.has_mask) out += " mask[" + mask_text(op) + "]";
    if (op.engine != Engine::None) out += std::string(" @") + to_string(op.engine);
    return out;
  }

  void block(const std::vector<Node>& body, int depth, std::string& out) const {
    std::string pad(static_cast<size_t>(depth) * 2, ' ');
    for (const Node& n : body) {
      switch (n.kind) {
        case NodeKind::Stmt:
          for (const auto& op : n.ops) out += pad + op_text(op) + "\n";
          break;
        case NodeKind::Loop: {
          const Loop& l = k_.loops.at(n.loop);
          std::string range = l.start.is_constant() && l.start.constant() == 0 && l.step == 1
                                  ? k_.str(l.stop)
                                  : fmt::format("{}, {}{}", k_.str(l.start), k_.str(l.stop),
                                                l.step == 1 ? "" : fmt::format(", {}", l.step));
          out += fmt::format("{}for {} in {}({}):\n", pad, l.var, l.dynamic && l.kind == LoopKind::Sequential ? "dynamic_range" : to_string(l.kind), range);
          block(n.body, depth + 1, out);
          break;
        }
        case NodeKind::If:
          out += fmt::format("{}if {} {} {}:\n", pad, k_.str(n.cond_l), symbol(n.cond), k_.str(n.cond_r));
          block(n.body, depth + 1, out);
          if (!n.orelse.empty()) {
            out += pad + "else:\n";
            block(n.orelse, depth + 1, out);
          }
          break;
        case NodeKind::Inline:
          for (size_t i = 0; i < n.inline_split && i < n.ops.size(); ++i) out += pad + op_text(n.ops[i]) + "\n";
          out += pad + "inline " + n.helper + ":\n";
          block(n.body, depth + 1, out);
          for (size_t i = n.inline_split; i < n.ops.size(); ++i) out += pad + op_text(n.ops[i]) + "\n";
          break;
        case NodeKind::Meta:
          if (n.meta == MetaKind::Return) {
            out += pad + "return";
            for (size_t i = 0; i < k_.outputs.size(); ++i) out += (i ? ", " : " ") + names_.at(k_.outputs[i]);
            out += "\n";
          }
          break;
      }
    }
  }

  const Kernel& k_;
  std::map<int, std::set<int>> carried_;  // loop -> the tensors it carries
  std::map<int, std::string> names_;
  std::set<std::string> taken_;
  std::vector<int> order_;
  int anonymous_ = 0;
};

}  // namespace

std::string dump(const Kernel& k) { return Dumper(k).run(); }

std::string access_text(const Kernel& k, const Access& a) { return Dumper(k).access(a); }

}  // namespace loopnest
