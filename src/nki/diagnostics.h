// Diagnostics: a value (location, severity, message, notes) rendered in one place, like a
// compiler's: `file:line:col: error: message`, the source line, a caret under the range.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace nki {

struct SourceFile {
  std::string path;  // as given by the user (shown in diagnostics)
  std::string text;
  // 1-based line -> text of that line (no newline); empty if out of range.
  std::string line_text(uint32_t line) const;
};

struct SourceLoc {
  std::shared_ptr<const SourceFile> file;
  uint32_t line = 0;     // 1-based; 0 = unknown
  uint32_t col = 0;      // 1-based, in characters
  uint32_t end_col = 0;  // exclusive; 0 = single caret
  bool known() const { return file && line > 0; }
};

// What kind of mistake: the category decides the status an evaluation reports
// (Syntax/Unsupported/Import/Name at load time -> compile_error; Sandbox, HostOnly and
// UnknownKeyword too; others -> runtime_error).
enum class ErrorKind : uint8_t {
  Syntax,       // not valid Python
  Unsupported,  // valid Python outside the accepted subset (says which feature)
  Import,       // import of a module that is not numpy, math or nki
  Name,         // unknown name or attribute / API
  Type,         // wrong argument types or counts
  Value,        // bad values (shapes, dtypes, axes)
  Index,        // index out of bounds
  Rule,         // an NKI hardware rule (partition <= 128, matmul operands, PSUM tile size, ...)
  Assertion,    // assert failed
  Sandbox,      // forbidden facility (open, eval, dunder access, ...)
  HostOnly,     // a module outside the allowlist (os, argparse, torch) used: harness code, never run
  // A call with a keyword its function does not take (`nl.exp(x, bogus=1)`, a helper called with a
  // misspelt parameter): the program is not a call anyone can run, so it is a compile error, at
  // the keyword. Python's TypeError for `except` (Python semantics kept for user functions).
  UnknownKeyword,
  Limit,        // steps, memory or wall-time limit reached (which one: LimitKind)
  Internal,     // a bug in accelopt, never the user's fault
};
const char* to_string(ErrorKind k);

// Which limit a Limit error reached. The evaluation's status depends on it (eval/failure.h):
// steps and time are a timeout, memory and output a resource error, nesting a compile error, the
// wall-clock backstop of a CPU-time limit "unfinished" (the machine's load, not the kernel).
enum class LimitKind : uint8_t {
  None,        // not a Limit error
  Steps,       // interpreter steps (Limits::max_steps)
  Time,        // CPU time (Limits::max_cpu_seconds), or wall time when no CPU limit is set
  Memory,      // bytes of arrays and containers (Limits::max_bytes), or the allocator failed
  Depth,       // nested calls or nested containers (Python's RecursionError)
  Output,      // text printed by print()
  SourceSize,  // a source file larger than Limits::max_source_bytes
  Nesting,     // an expression or block nested too deeply to compile
  WallTime,    // the wall-clock backstop (Limits::max_seconds) of a CPU-time limit
};
const char* to_string(LimitKind k);

struct Note {
  SourceLoc loc;
  std::string message;
};

struct Diagnostic {
  ErrorKind kind = ErrorKind::Internal;
  LimitKind limit = LimitKind::None;  // set exactly when kind == Limit
  SourceLoc loc;
  std::string message;      // lower-case start, no trailing period
  std::vector<Note> notes;  // e.g. "note: loop opened here", traceback frames
  // The Python exception class the error is (what `except` matches): "ZeroDivisionError",
  // "KeyError", a user class; empty means the class of `kind` (ValueError for Value, ...).
  std::string py_type;
  // The keyword argument a call's binding failed on (unexpected, or given twice); empty
  // otherwise. Typed so the caller can put the caret under that keyword and a test can tell the
  // failure apart without reading the message.
  std::string keyword;
};

// The exception carrying a diagnostic through the interpreter. Builtins throw it without a
// location; the interpreter fills `loc` with the innermost call site in user code.
struct NkiError : std::runtime_error {
  Diagnostic diag;
  // The exception object of a `raise` in user code (an nki::Object), so that `except E as e`
  // binds the object that was raised; null for errors raised by the interpreter or libraries.
  std::shared_ptr<void> exception;
  NkiError(ErrorKind kind, std::string message, SourceLoc loc = {});
  NkiError(ErrorKind kind, std::string py_type, std::string message);
  // A Limit error: which limit, and what happened.
  NkiError(LimitKind limit, std::string message, SourceLoc loc = {});
};

[[noreturn]] void throw_error(ErrorKind kind, std::string message);

// The error of a call with a keyword its function does not take: UnknownKeyword, diag.keyword
// naming it (the interpreter puts the caret under it), "nl.exp has no keyword 'bogus'; accepted:
// x, dtype, mask". `accepted`: the keywords it takes, comma-separated ("" when none).
NkiError unknown_keyword(std::string_view function, std::string_view keyword, std::string_view accepted);

// Byte offset of the first byte that does not belong to a well-formed UTF-8 sequence (overlong
// forms and surrogates included); npos when the text is valid UTF-8.
size_t first_invalid_utf8(std::string_view text);
// The text with every invalid byte replaced by U+FFFD, so that what is shown (and written into
// JSON) is always valid UTF-8.
std::string sanitize_utf8(std::string_view text);

// Renders the diagnostic:
//   path:line:col: error: message
//      14 |     a_tile = nl.load(a[i * 256:(i + 1) * 256, :])
//         |                      ^~~~~~~~~~~~~~~~~~~~~~~~~~~
//   path:9:5: note: ...
std::string render(const Diagnostic& d);

}  // namespace nki
