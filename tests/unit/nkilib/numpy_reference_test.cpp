// Every NKIBench reference (nkibench/reference/*.py) runs through the numpy module in shape-only
// mode: get_inputs, forward, transform_to_nki_inputs and transform_nki_outputs, with the output
// shapes numpy gives (nkibench.md). Shape-only runs cost nothing per element, so this is quick.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "nki/interpreter.h"
#include "nki/lib/array_value.h"
#include "nki/lib/modules.h"
#include "support/test_paths.h"

namespace nki::lib {
namespace {

namespace fs = std::filesystem;

std::string shape_of(const Value& v) {
  if (auto* a = v.as<NdArrayObj>()) return tensor::shape_str(a->array.shape());
  if (auto* t = v.as<TupleObj>(); t && t->items.size() == 1) return shape_of(t->items[0]);
  if (auto* l = v.as<ListObj>(); l && l->items.size() == 1) return shape_of(l->items[0]);
  return v.type_name();
}

// "bmm_softmax_B16_K64_M4096_N4096" -> "bmm_softmax": the name ends before the first _<Upper><digit>.
std::string task_name(const std::string& file) {
  for (size_t pos = 0; pos + 2 < file.size(); ++pos)
    if (file[pos] == '_' && std::isupper(static_cast<unsigned char>(file[pos + 1])) &&
        std::isdigit(static_cast<unsigned char>(file[pos + 2])))
      return file.substr(0, pos);
  return file;
}

TEST(NumpyReferences, AllRunShapeOnly) {
  const std::map<std::string, std::string> expected_output = {
      {"adamw", "(10944, 2048)"},           {"add_rmsnorm_matmul", "(4096, 2048)"},
      {"bmm", "(16, 4096, 4096)"},          {"bmm_softmax", "(16, 4096, 4096)"},
      {"gqa_full", "(1, 16, 4096, 128)"},   {"lora", "(4096, 12288)"},
      {"mamba", "(256, 7168)"},             {"matmul", "(4096, 12288)"},
      {"matmul_add_rmsnorm", "(4096, 2048)"}, {"rmsnorm_matmul", "(4096, 2048)"},
      {"rope_single_freq_apply", "(128, 262144)"}, {"silu", "(4096, 7168)"},
      {"swiglu", "(4096, 1024)"},           {"transpose_matmul", "(4096, 10944)"},
  };
  int ran = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(ACCELOPT_SOURCE_DIR) / "nkibench/reference")) {
    if (entry.path().extension() != ".py") continue;
    std::string file = entry.path().stem().string();
    std::string task = task_name(file);
    SCOPED_TRACE(file);
    Interpreter in;
    install_builtin_modules(in);
    in.register_module("numpy", make_numpy_module);
    set_numpy_shape_only(in, true);
    auto src = std::make_shared<SourceFile>();
    src->path = entry.path().string();
    std::ifstream f(entry.path());
    std::stringstream ss;
    ss << f.rdbuf();
    src->text = ss.str();
    try {
      auto mod = in.load_module(src);
      Value np_mod = in.import_module("numpy");
      in.call(in.get_attr(in.get_attr(np_mod, "random"), "seed"), CallArgs{{Value::from_int(0)}, {}});
      Value inputs = in.call(in.get_attr(Value(mod), "get_inputs"), {});
      CallArgs fwd;
      auto items = in.iterate(inputs);
      for (Value v; items->next(v);) fwd.args.push_back(v);
      Value ref = in.call(in.get_attr(Value(mod), "forward"), fwd);
      in.call(in.get_attr(Value(mod), "transform_to_nki_inputs"), CallArgs{{inputs}, {}});
      Value back = in.call(in.get_attr(Value(mod), "transform_nki_outputs"), CallArgs{{ref, ref}, {}});
      auto it = expected_output.find(task);
      ASSERT_NE(it, expected_output.end()) << task;
      EXPECT_EQ(shape_of(ref), it->second);
      EXPECT_EQ(shape_of(back), it->second);
      ++ran;
    } catch (const NkiError& e) {
      ADD_FAILURE() << render(e.diag);
    }
  }
  EXPECT_EQ(ran, 14);
}

}  // namespace
}  // namespace nki::lib
