// `accelopt parse FILE [--emit tokens|ast|python|loops] [--reference REF]`: runs the front end
// and prints one stage.
//   tokens  one token per line with its span (golden format of tests/golden/nki/lex)
//   ast     the AST with line:col on every node (tests/golden/nki/parse)
//   python  the AST printed back as Python (what the rewrite agent emits)
//   loops   the kernel's loop-nest form (src/loopnest/dump.h) of the function --entry names (as
//           `eval --entry`: the same function, the same errors); the argument shapes come from
//           --reference, else from the reference its file name has in a benchmark directory,
//           else from a first line `# inputs: 128x512 ...`; --arch the target whose
//           nisa.get_nc_version() the trace sees (trn1 by default)
//   loops-source  the kernel printed back from its loop-nest form, every operation written
//           from the form in the kernel's dialect (checked: it lifts to the same form)
#include <fmt/core.h>

#include "bench/arg_specs.h"
#include "eval/profile_run.h"
#include "cli/command.h"
#include "cli/kernel_entry_check.h"
#include "cli/read_source.h"
#include "loopnest/dump.h"
#include "loopnest/emit.h"
#include "loopnest/lift.h"
#include "nki/ast_dump.h"
#include "nki/ast_printer.h"
#include "nki/lexer.h"
#include "nki/parser.h"
#include "trn/arch_config.h"

namespace {

struct ParseOptions {
  std::string file;
  std::string emit = "ast";
  std::string reference;
  std::string bench_root;  // where the reference is found by the kernel's file name (default: the bundled one)
  std::string entry;
  std::string arch = "trn1";  // the target nisa.get_nc_version() reports while lifting
};

int emit_loops(const ParseOptions& o, const std::string& text) {
  if (!cli::check_entry(o.file, text, o.entry)) return 1;
  std::string reference = o.reference.empty() ? bench::reference_for_kernel(o.file, o.bench_root) : o.reference;
  std::vector<loopnest::ArgSpec> args;
  if (reference.empty()) args = loopnest::arg_specs_from_header(text);
  if (!reference.empty()) {
    auto ref_text = cli::read_source_file(reference);
    if (!ref_text) return 1;
    try {
      args = eval::reference_arg_specs(reference, *ref_text);
    } catch (const std::runtime_error& e) {
      fmt::print(stderr, "accelopt: error: {}\n", e.what());
      return 1;
    }
  }
  try {
    loopnest::Kernel k = loopnest::lift_source(o.file, text, args, o.entry, trn::arch_config(o.arch).nc_version);
    if (o.emit == "loops") fmt::print("{}", loopnest::dump(k));
    else fmt::print("{}", loopnest::emit_checked(k, args, {.regenerate = true}));
    return 0;
  } catch (const loopnest::LiftError& e) {
    fmt::print(stderr, "{}", e.render());
    return 1;
  } catch (const loopnest::EmitError& e) {
    fmt::print(stderr, "accelopt: error: {}: {}\n", o.file, e.what());
    return 1;
  }
}

int run_parse(const ParseOptions& o) {
  auto text = cli::read_source_file(o.file);
  if (!text) return 1;
  if (o.emit == "loops" || o.emit == "loops-source") return emit_loops(o, *text);
  auto src = std::make_shared<nki::SourceFile>(nki::SourceFile{o.file, *text});
  try {
    if (o.emit == "tokens") {
      fmt::print("{}", nki::dump_tokens(nki::lex(src)));
      return 0;
    }
    auto module = nki::parse_module(src);
    fmt::print("{}", o.emit == "python" ? nki::print_module(*module) : nki::dump_ast(*module));
    return 0;
  } catch (const nki::NkiError& e) {
    fmt::print(stderr, "{}", nki::render(e.diag));
    return 1;
  }
}

cli::RunFn setup_parse(CLI::App& sub) {
  auto o = std::make_shared<ParseOptions>();
  // `--kernel FILE` as every other command names the kernel file; the positional form stays.
  sub.add_option("file,--kernel", o->file, "Python source (kernel or reference)")->required();
  sub.add_option("--emit", o->emit, "stage to print: tokens, ast, python or loops")
      ->check(CLI::IsMember({"tokens", "ast", "python", "loops", "loops-source"}));
  sub.add_option("--reference", o->reference, "reference .py giving the kernel's argument shapes (--emit loops)");
  sub.add_option("--bench-root", o->bench_root, "benchmark directory whose task references the kernel's file name finds (default: the bundled nkibench)");
  cli::add_entry_option(sub, o->entry);
  sub.add_option("--arch", o->arch, "target whose nisa.get_nc_version() the lift takes (--emit loops): trn1 or trn2")
      ->check(CLI::IsMember({"trn1", "trn2"}));
  return [o] { return run_parse(*o); };
}

cli::CommandRegistrar reg("parse", "lex and parse a kernel or reference file and print a stage", setup_parse);

}  // namespace
