// Runs every NKIBench kernel in trace-only mode on the shapes its reference produces and prints
// instruction/record counts and wall time (or the diagnostic when a kernel fails): a coverage
// check of the nki library on the real corpus and a second throughput figure.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "nki/interpreter.h"
#include "nki/lib/array_value.h"
#include "nki/lib/kernel_runner.h"
#include "nki/lib/modules.h"
#include "tensor/ops.h"

namespace nki::lib {
ObjectPtr make_numpy_module(Interpreter& in);
}

namespace fs = std::filesystem;

namespace {

struct CountingSink : trn::TraceSink {
  uint64_t records = 0, instructions = 0;
  void consume(const trn::Record& r) override {
    ++records;
    instructions += r.kind == trn::RecordKind::Instruction;
  }
};

std::shared_ptr<nki::SourceFile> source(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  auto s = std::make_shared<nki::SourceFile>();
  s->path = p.string();
  s->text = ss.str();
  return s;
}

fs::path reference_for(const fs::path& dir, const std::string& kernel_stem) {
  std::string task = kernel_stem.substr(0, kernel_stem.rfind('_'));  // drop "_0"
  for (auto& e : fs::directory_iterator(dir))
    if (e.path().stem().string() == task || e.path().filename().string().rfind(task + "_numpy_", 0) == 0)
      return e.path();
  return {};
}

}  // namespace

// --check SUBSTRING: also run matching kernels with numerics and print the relative L2 error
// against the reference's forward() (the NKIBench correctness metric, seed-independent here).
void check_numerics(nki::Interpreter& in, nki::ModuleObj& ref, nki::ModuleObj& mod, const nki::Value& inputs,
                    const std::vector<nki::Value>& args) {
  nki::lib::KernelRunOptions opt;
  auto t0 = std::chrono::steady_clock::now();
  auto res = nki::lib::run_kernel(in, mod, args, opt);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  nki::CallArgs fargs;
  if (auto* l = inputs.as<nki::ListObj>()) fargs.args = l->items;
  nki::Value want = in.call(ref.attrs.at("forward"), std::move(fargs));
  std::vector<nki::Value> outs;
  for (auto& o : res.outputs) outs.push_back(nki::lib::make_array(o));
  nki::CallArgs targs;
  targs.args = {res.returned_tuple || outs.size() != 1 ? nki::make_tuple(outs) : outs[0], want};
  nki::Value got = in.call(ref.attrs.at("transform_nki_outputs"), std::move(targs));
  std::vector<nki::Value> gots, wants;
  if (auto* l = got.as<nki::ListObj>()) gots = l->items;
  else if (auto* t = got.as<nki::TupleObj>()) gots = t->items;
  if (auto* t = want.as<nki::TupleObj>()) wants = t->items;
  else wants = {want};
  for (size_t i = 0; i < gots.size() && i < wants.size(); ++i) {
    auto* g = gots[i].as<nki::lib::NdArrayObj>();
    auto* w = wants[i].as<nki::lib::NdArrayObj>();
    if (g && w) std::printf("    numerics: output %zu rel_l2 = %.3g (kernel %.2f s)\n", i, tensor::relative_l2(g->array, w->array), s);
  }
}

int main(int argc, char** argv) {
  std::string check = argc > 2 && std::string(argv[1]) == "--check" ? argv[2] : "";
  fs::path root = fs::path(ACCELOPT_SOURCE_DIR) / "nkibench";
  std::vector<fs::path> kernels;
  for (auto& e : fs::directory_iterator(root / "kernels")) kernels.push_back(e.path());
  std::sort(kernels.begin(), kernels.end());
  std::printf("%-45s %12s %12s %9s %12s\n", "kernel", "instructions", "records", "seconds", "records/s");
  for (auto& k : kernels) {
    std::string stem = k.stem().string();
    try {
      nki::Interpreter in;
      nki::lib::install_builtin_modules(in);
      in.register_module("numpy", nki::lib::make_numpy_module);
      auto ref = in.load_module(source(reference_for(root / "reference", stem)));
      nki::Value inputs = in.call(ref->attrs.at("get_inputs"), {});
      nki::CallArgs targs;
      targs.args.push_back(inputs);
      nki::Value kin = in.call(ref->attrs.at("transform_to_nki_inputs"), std::move(targs));
      std::vector<nki::Value> args;
      if (auto* l = kin.as<nki::ListObj>()) args = l->items;
      else if (auto* t = kin.as<nki::TupleObj>()) args = t->items;
      auto mod = in.load_module(source(k));
      CountingSink sink;
      nki::lib::KernelRunOptions opt;
      opt.numerics = false;
      opt.sink = &sink;
      auto t0 = std::chrono::steady_clock::now();
      nki::lib::run_kernel(in, *mod, args, opt);
      double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::printf("%-45s %12llu %12llu %9.3f %12.0f\n", stem.c_str(), (unsigned long long)sink.instructions,
                  (unsigned long long)sink.records, s, double(sink.records) / s);
      if (!check.empty() && stem.find(check) != std::string::npos) check_numerics(in, *ref, *mod, inputs, args);
    } catch (const nki::NkiError& e) {
      std::printf("%-45s FAILED: %s\n", stem.c_str(), nki::render(e.diag).c_str());
    } catch (const std::exception& e) {
      std::printf("%-45s FAILED: %s\n", stem.c_str(), e.what());
    }
    std::fflush(stdout);
  }
  return 0;
}
