#include "report/page.h"

#include <chrono>

#include <nlohmann/json.hpp>

#include "base/atomic_file.h"
#include "report/assets.h"

namespace report {

namespace {

std::string escape_html(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// JSON inside <script>: "</" would end the element early, and U+2028/9 are fine in JSON.
std::string script_safe_json(const nlohmann::json& data) {
  std::string text = data.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size() + 64);
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '<' && i + 1 < text.size() && (text[i + 1] == '/' || text[i + 1] == '!')) out += "\\u003c";
    else out += text[i];
  }
  return out;
}

}  // namespace

std::string render_page(const nlohmann::json& data, const std::string& title) {
  std::string html;
  html += "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  html += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  html += "<meta name=\"generator\" content=\"accelopt report\">\n";
  html += "<title>" + escape_html(title) + "</title>\n<style>\n";
  html += assets::report_css;
  html += "</style>\n</head>\n<body data-render=\"pending\">\n<div id=\"errors\" class=\"errors\"></div>\n<div id=\"app\">";
  html += "<noscript>This report draws its figures with JavaScript; the data is in the report-data element.</noscript>";
  html += "</div>\n<script type=\"application/json\" id=\"report-data\">";
  html += script_safe_json(data);
  html += "</script>\n<script>\n";
  html += assets::jsdiff_js;
  html += "\n</script>\n<script>\n";
  html += assets::charts_js;
  html += "\n";
  html += assets::run_js;
  html += "\n";
  html += assets::compare_js;
  html += "\n";
  html += assets::bench_js;
  html += "\n</script>\n</body>\n</html>\n";
  return html;
}

nlohmann::json bench_page_data(const nlohmann::json& bench_json) {
  auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return {{"format", "accelopt-report"}, {"kind", "bench"}, {"generated_at", stamp}, {"bench", bench_json}};
}

void write_page(const std::string& path, const std::string& html) { base::write_file_atomic(path, html); }

}  // namespace report
