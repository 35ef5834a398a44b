// The page's stylesheet and scripts, embedded at build time from src/report/assets/ and from
// Debian's node-diff (jsdiff) by cmake/embed_assets.cmake.
#pragma once

namespace report::assets {

extern const char* const report_css;
extern const char* const charts_js;
extern const char* const run_js;
extern const char* const compare_js;
extern const char* const bench_js;
extern const char* const jsdiff_js;

}  // namespace report::assets
