#include "trn/trace_text.h"

#include <charconv>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

namespace trn {
namespace {

// The name an operand without a recorded element format prints (the first format of its size).
constexpr ElemType kByBytes[] = {ElemType::F32, ElemType::BF16, ElemType::FP8, ElemType::I32, ElemType::F64};

class LineParser {
 public:
  LineParser(const std::string& source, int line) : source_(source), line_(line) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw std::invalid_argument(fmt::format("{}:{}: {}", source_, line_, what));
  }

  uint64_t number(std::string_view text, const char* what) const {
    uint64_t v = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size())
      fail(fmt::format("bad {} '{}'", what, text));
    return v;
  }

  int64_t signed_number(std::string_view text, const char* what) const {
    int64_t v = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size())
      fail(fmt::format("bad {} '{}'", what, text));
    return v;
  }

  LoopKind loop_kind(std::string_view text) const {
    for (LoopKind k : {LoopKind::Affine, LoopKind::Sequential, LoopKind::Static, LoopKind::Python})
      if (text == to_string(k)) return k;
    fail(fmt::format("unknown loop kind '{}' (affine_range, sequential_range, static_range, range)", text));
  }

  AluOp alu(std::string_view text) const {
    for (int op = 0; op <= int(kLastAluOp); ++op)
      if (text == to_string(AluOp(op))) return AluOp(op);
    fail(fmt::format("unknown alu operation '{}'", text));
  }

  BufferKind buffer(std::string_view text) const {
    if (text == "hbm") return BufferKind::Hbm;
    if (text == "sbuf") return BufferKind::Sbuf;
    if (text == "psum") return BufferKind::Psum;
    fail(fmt::format("unknown buffer '{}'", text));
  }

  Engine engine(std::string_view text) const {
    for (Engine e : {Engine::Tensor, Engine::Vector, Engine::Scalar, Engine::GpSimd, Engine::Sync,
                     Engine::Dma})
      if (text == to_string(e)) return e;
    fail(fmt::format("unknown engine '{}' (pe, dve, act, pool, sp, dma)", text));
  }

  Opcode opcode(std::string_view text) const {
    for (int op = 0; op <= int(Opcode::Other); ++op)
      if (text == to_string(Opcode(op))) return Opcode(op);
    fail(fmt::format("unknown opcode '{}'", text));
  }

  // buffer:tensor[.block]:PxF[:dtype][:cBYTES][:dN][:strided]
  Operand operand(std::string_view text) const {
    std::vector<std::string_view> parts;
    size_t start = 0;
    while (true) {
      size_t colon = text.find(':', start);
      parts.push_back(text.substr(start, colon - start));
      if (colon == std::string_view::npos) break;
      start = colon + 1;
    }
    if (parts.size() < 3) fail(fmt::format("operand '{}' needs buffer:tensor:PxF", text));
    Operand op;
    op.buffer = buffer(parts[0]);
    size_t dot = parts[1].find('.');
    op.tensor_id = uint32_t(number(parts[1].substr(0, dot), "tensor id"));
    if (dot != std::string_view::npos) op.block = uint32_t(number(parts[1].substr(dot + 1), "block"));
    size_t x = parts[2].find('x');
    if (x == std::string_view::npos) fail(fmt::format("shape '{}' must be PxF", parts[2]));
    op.partitions = uint16_t(number(parts[2].substr(0, x), "partition count"));
    op.free_elements = uint32_t(number(parts[2].substr(x + 1), "free size"));
    for (size_t idx = 3; idx < parts.size(); ++idx) modifier(op, parts[idx]);
    return op;
  }

 private:
  void modifier(Operand& op, std::string_view m) const {
    for (int e = 1; e <= int(kLastElemType); ++e) {
      ElemTypeInfo d = elem_info(ElemType(e));
      if (m == d.name) {
        op.dtype_bytes = d.bytes;
        op.fp32 = d.fp32;
        op.elem = ElemType(e);
        return;
      }
    }
    char key = m.empty() ? '\0' : m[0];
    std::string_view rest = m.empty() ? m : m.substr(1);
    if (m == "strided") op.strided = true;
    else if (m == "indirect") op.indirect = true;
    else if (key == 'c') op.contiguous_bytes = uint32_t(number(rest, "contiguous bytes"));
    else if (key == 'd') op.descriptors = uint32_t(number(rest, "descriptor count"));
    else if (key == 's') op.partition_start = uint16_t(number(rest, "partition start"));
    else if (key == 'o') op.offset = signed_number(rest, "offset");
    else if (key == 'r') op.row_stride = signed_number(rest, "row stride");
    else if (key == 'p') op.pitch = uint32_t(number(rest, "pitch"));
    else if (key == 'e') op.extent = uint32_t(number(rest, "extent"));
    else fail(fmt::format("unknown operand modifier '{}'", m));
  }

  const std::string& source_;
  int line_;
};

Record parse_alloc(std::istringstream& words, const LineParser& p) {
  Record r;
  r.kind = RecordKind::Alloc;
  std::string id, buf, word;
  if (!(words >> id >> buf)) p.fail("alloc needs an id and a buffer");
  r.alloc.tensor_id = uint32_t(p.number(id, "tensor id"));
  r.alloc.buffer = p.buffer(buf);
  while (words >> word) {
    auto eq = word.find('=');
    std::string key = word.substr(0, eq), value = eq == std::string::npos ? "" : word.substr(eq + 1);
    if (key == "name") r.alloc.name = value;
    else if (key == "blocks") r.alloc.blocks = uint32_t(p.number(value, "block count"));
    else if (key == "partitions") r.alloc.partitions = uint16_t(p.number(value, "partition count"));
    else if (key == "bytes") r.alloc.bytes_per_partition = p.number(value, "byte count");
    else if (key == "regions") r.alloc.regions = uint32_t(p.number(value, "region count"));
    else if (key == "input") r.alloc.is_kernel_input = true;
    else if (key == "output") r.alloc.is_kernel_output = true;
    else if (key == "zero") r.alloc.zero_initialized = true;
    else if (key == "line") r.line = uint32_t(p.number(value, "line"));
    else p.fail(fmt::format("unknown alloc field '{}'", key));
  }
  return r;
}

void parse_mm(const std::string& value, InstructionInfo& inst, const LineParser& p) {
  std::istringstream dims(value);
  std::string k, m, n;
  if (!std::getline(dims, k, ',') || !std::getline(dims, m, ',') || !std::getline(dims, n))
    p.fail("mm= needs K,M,N");
  inst.matmul_rows = uint32_t(p.number(k, "K"));
  inst.matmul_stationary_cols = uint32_t(p.number(m, "M"));
  inst.matmul_moving_cols = uint32_t(p.number(n, "N"));
}

void parse_onezero(const std::string& value, InstructionInfo& inst, const LineParser& p) {
  if (value != "stationary" && value != "moving" && value != "both")
    p.fail(fmt::format("onezero= needs stationary, moving or both, got '{}'", value));
  inst.stationary_onezero = value != "moving";
  inst.moving_onezero = value != "stationary";
}

Record parse_inst(std::istringstream& words, const LineParser& p) {
  Record r;
  r.kind = RecordKind::Instruction;
  std::string opcode, engine, word;
  if (!(words >> opcode >> engine)) p.fail("inst needs an opcode and an engine");
  r.inst.opcode = p.opcode(opcode);
  r.inst.engine = p.engine(engine);
  std::vector<Operand>* target = nullptr;
  while (words >> word) {
    auto eq = word.find('=');
    std::string key = word.substr(0, eq), value = eq == std::string::npos ? "" : word.substr(eq + 1);
    if (word == "in") target = &r.inst.inputs;
    else if (word == "out") target = &r.inst.outputs;
    else if (word == "acc") r.inst.accumulate = true;
    else if (word == "reduce") r.inst.has_reduce = true;
    else if (word == "user") r.inst.engine_chosen_by_user = true;
    else if (word == "noact") r.inst.no_scalar_engine = true;
    else if (word == "nonzero") r.inst.nonzero_fill = true;
    else if (key == "alu") r.inst.alu = p.alu(value);
    else if (key == "salu") r.inst.scalar_alu = p.alu(value);
    else if (key == "alu1") r.inst.alu1 = p.alu(value);
    else if (key == "line") r.line = uint32_t(p.number(value, "line"));
    else if (key == "mm") parse_mm(value, r.inst, p);
    else if (key == "flops") r.inst.flops = p.number(value, "flops");
    else if (key == "func") r.inst.activation_func = uint16_t(p.number(value, "function"));
    else if (key == "onezero") parse_onezero(value, r.inst, p);
    else if (key == "pe_cells") r.inst.pe_cells = uint16_t(p.number(value, "pe_cells"));
    else if (target) target->push_back(p.operand(word));
    else p.fail(fmt::format("operand '{}' before 'in' or 'out'", word));
  }
  return r;
}

std::string format_operand(const Operand& op) {
  std::string dtype = "f32";
  if (op.elem != ElemType::Unset) {
    dtype = elem_info(op.elem).name;
  } else {
    for (ElemType e : kByBytes)
      if (elem_info(e).bytes == op.dtype_bytes && elem_info(e).fp32 == op.fp32) {
        dtype = elem_info(e).name;
        break;
      }
  }
  std::string s = fmt::format("{}:{}.{}:{}x{}:{}", to_string(op.buffer), op.tensor_id, op.block,
                              op.partitions, op.free_elements, dtype);
  if (op.contiguous_bytes) s += fmt::format(":c{}", op.contiguous_bytes);
  if (op.descriptors != 1) s += fmt::format(":d{}", op.descriptors);
  if (op.strided) s += ":strided";
  if (op.indirect) s += ":indirect";
  if (op.partition_start) s += fmt::format(":s{}", op.partition_start);
  if (op.offset) s += fmt::format(":o{}", op.offset);
  if (op.row_stride) s += fmt::format(":r{}", op.row_stride);
  if (op.pitch) s += fmt::format(":p{}", op.pitch);
  if (op.extent) s += fmt::format(":e{}", op.extent);
  return s;
}

Record parse_loop(std::istringstream& words, const LineParser& p) {
  Record r;
  std::string what, word;
  words >> what;
  auto id = [&] {
    if (!(words >> word)) p.fail("loop needs a loop id");
    return uint32_t(p.number(word, "loop id"));
  };
  if (what == "begin") {
    r.kind = RecordKind::LoopBegin;
    if (!(words >> word)) p.fail("loop begin needs a kind");
    r.loop.kind = p.loop_kind(word);
    r.loop.loop_id = id();
    if (!(words >> word)) p.fail("loop begin needs a trip count");
    r.loop.trip_count = int64_t(p.number(word, "trip count"));
    if (words >> word) {
      if (word.rfind("line=", 0) != 0) p.fail(fmt::format("unknown loop begin field '{}'", word));
      r.line = uint32_t(p.number(word.substr(5), "line"));
    }
  } else if (what == "iter") {
    r.kind = RecordKind::LoopIteration;
    r.loop.loop_id = id();
    if (!(words >> word)) p.fail("loop iter needs an iteration");
    r.loop.iteration = int64_t(p.number(word, "iteration"));
  } else if (what == "end") {
    r.kind = RecordKind::LoopEnd;
    r.loop.loop_id = id();
  } else {
    p.fail(fmt::format("loop record must be 'begin', 'iter' or 'end', not '{}'", what));
  }
  return r;
}

Record parse_kernel(std::istringstream& words, const LineParser& p) {
  Record r;
  r.kind = RecordKind::Kernel;
  std::string word;
  while (words >> word) {
    if (word == "skip_middle_end_transformations") r.kernel.skip_middle_end_transformations = true;
    else if (word == "enable_stack_allocator") r.kernel.enable_stack_allocator = true;
    else if (word == "force_auto_alloc") r.kernel.force_auto_alloc = true;
    else if (word == "no_reorder") r.kernel.no_reorder = true;
    else if (word == "multi_buffer") r.kernel.multi_buffer = true;
    else p.fail(fmt::format("unknown kernel attribute '{}'", word));
  }
  return r;
}

}  // namespace

TextTrace parse_trace_text(std::istream& in, const std::string& source) {
  TextTrace trace;
  std::string text;
  int line_no = 0;
  uint64_t seq = 0;
  while (std::getline(in, text)) {
    ++line_no;
    LineParser p(source, line_no);
    // A comment runs from '#' to the end of the line.
    if (size_t hash = text.find('#'); hash != std::string::npos) text.resize(hash);
    std::istringstream words(text);
    std::string head;
    if (!(words >> head)) continue;
    if (head == "arch") {
      if (!(words >> trace.arch)) p.fail("arch needs a name");
      continue;
    }
    Record r;
    if (head == "alloc") r = parse_alloc(words, p);
    else if (head == "inst") r = parse_inst(words, p);
    else if (head == "loop") r = parse_loop(words, p);
    else if (head == "kernel") r = parse_kernel(words, p);
    else p.fail(fmt::format("unknown record '{}' (alloc, inst, loop, kernel, arch)", head));
    r.seq = seq++;
    trace.records.push_back(std::move(r));
  }
  return trace;
}

std::string format_record(const Record& r) {
  if (r.kind == RecordKind::Alloc) {
    const auto& a = r.alloc;
    std::string s = fmt::format("alloc {} {} name={} blocks={} partitions={} bytes={}", a.tensor_id,
                                to_string(a.buffer), a.name.empty() ? "-" : a.name, a.blocks,
                                a.partitions, a.bytes_per_partition);
    if (a.is_kernel_input) s += " input";
    if (a.is_kernel_output) s += " output";
    if (a.zero_initialized) s += " zero";
    if (r.line) s += fmt::format(" line={}", r.line);
    return s;
  }
  switch (r.kind) {
    case RecordKind::LoopBegin:
      return fmt::format("loop begin {} {} {}", to_string(r.loop.kind), r.loop.loop_id, r.loop.trip_count) +
             (r.line ? fmt::format(" line={}", r.line) : "");
    case RecordKind::LoopIteration:
      return fmt::format("loop iter {} {}", r.loop.loop_id, r.loop.iteration);
    case RecordKind::LoopEnd:
      return fmt::format("loop end {}", r.loop.loop_id);
    case RecordKind::Kernel: return "kernel" + kernel_attributes(r.kernel);
    case RecordKind::Alloc:
    case RecordKind::Instruction:
      break;
  }
  const auto& inst = r.inst;
  std::string s = fmt::format("inst {} {} line={}", to_string(inst.opcode), to_string(inst.engine), r.line);
  if (inst.accumulate) s += " acc";
  if (inst.has_reduce) s += " reduce";
  if (inst.nonzero_fill) s += " nonzero";
  if (inst.engine_chosen_by_user) s += " user";
  if (inst.no_scalar_engine) s += " noact";
  if (inst.alu != AluOp::Unknown) s += fmt::format(" alu={}", to_string(inst.alu));
  if (inst.scalar_alu != AluOp::Unknown) s += fmt::format(" salu={}", to_string(inst.scalar_alu));
  if (inst.alu1 != AluOp::Unknown) s += fmt::format(" alu1={}", to_string(inst.alu1));
  if (inst.activation_func) s += fmt::format(" func={}", inst.activation_func);
  if (inst.flops) s += fmt::format(" flops={}", inst.flops);
  if (inst.matmul_moving_cols)
    s += fmt::format(" mm={},{},{}", inst.matmul_rows, inst.matmul_stationary_cols, inst.matmul_moving_cols);
  if (inst.stationary_onezero || inst.moving_onezero)
    s += inst.stationary_onezero ? (inst.moving_onezero ? " onezero=both" : " onezero=stationary") : " onezero=moving";
  if (inst.pe_cells) s += fmt::format(" pe_cells={}", inst.pe_cells);
  s += " in";
  for (const auto& op : inst.inputs) s.append(" ").append(format_operand(op));
  s += " out";
  for (const auto& op : inst.outputs) s.append(" ").append(format_operand(op));
  return s;
}

std::string format_trace(const std::vector<Record>& records) {
  std::string out;
  for (const auto& r : records) out += format_record(r) + "\n";
  return out;
}

}  // namespace trn
