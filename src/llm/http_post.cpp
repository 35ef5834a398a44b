#include "llm/http_post.h"

#include <cctype>
#include <chrono>
#include <cstdlib>
#include <mutex>

#include <curl/curl.h>

namespace llm {
namespace {

void init_curl_once() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct CurlHandle {
  CURL* curl = nullptr;
  CurlHandle() : curl(curl_easy_init()) {}
  ~CurlHandle() { if (curl) curl_easy_cleanup(curl); }
};

struct HeaderList {
  curl_slist* list = nullptr;
  ~HeaderList() { curl_slist_free_all(list); }
};

size_t on_body(char* data, size_t size, size_t count, void* user) {
  static_cast<std::string*>(user)->append(data, size * count);
  return size * count;
}

std::string trim(std::string text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  size_t start = 0;
  while (start < text.size() && std::isspace(static_cast<unsigned char>(text[start]))) ++start;
  return text.substr(start);
}

size_t on_header(char* data, size_t size, size_t count, void* user) {
  std::string line(data, size * count);
  auto colon = line.find(':');
  if (colon != std::string::npos) {
    std::string name = line.substr(0, colon);
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (name == "retry-after")
      static_cast<HttpResult*>(user)->retry_after_s = parse_retry_after(trim(line.substr(colon + 1)));
  }
  return size * count;
}

using Clock = std::chrono::steady_clock;

// What the progress callback watches: cancellation, and for streams the time since the last
// byte arrived (curl's own low-speed check averages over seconds of earlier data, so a stream
// that went silent after a burst would run on for several seconds more).
struct Watch {
  const std::atomic<bool>* cancel = nullptr;
  double idle_s = 0;
  curl_off_t received = -1;
  Clock::time_point last_data = Clock::now();
  bool idle_expired = false;
};

// curl calls this about once a second and on every transfer event; non-zero aborts.
int on_progress(void* user, curl_off_t, curl_off_t downloaded, curl_off_t, curl_off_t) {
  auto* watch = static_cast<Watch*>(user);
  if (watch->cancel && watch->cancel->load()) return 1;
  if (watch->idle_s <= 0) return 0;
  auto now = Clock::now();
  if (downloaded != watch->received) {
    watch->received = downloaded;
    watch->last_data = now;
  } else if (std::chrono::duration<double>(now - watch->last_data).count() > watch->idle_s) {
    watch->idle_expired = true;
    return 1;
  }
  return 0;
}

HttpResult::Transport classify(CURLcode code) {
  switch (code) {
    case CURLE_OPERATION_TIMEDOUT: return HttpResult::Transport::Timeout;
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY: return HttpResult::Transport::Connect;
    case CURLE_ABORTED_BY_CALLBACK: return HttpResult::Transport::Cancelled;
    case CURLE_URL_MALFORMAT:
    case CURLE_UNSUPPORTED_PROTOCOL:
    case CURLE_OUT_OF_MEMORY: return HttpResult::Transport::Other;
    default: return HttpResult::Transport::Connect;  // network trouble: worth a retry
  }
}

}  // namespace

std::optional<double> parse_retry_after(const std::string& value) {
  if (value.empty()) return std::nullopt;
  char* end = nullptr;
  double seconds = std::strtod(value.c_str(), &end);
  if (end != value.c_str() + value.size() || !(seconds >= 0) || seconds > 1e7) return std::nullopt;
  return seconds;
}

HttpResult http_post(const std::string& url, const std::vector<std::string>& headers,
                     const std::string& body, HttpLimits limits, const std::atomic<bool>* cancel) {
  init_curl_once();
  thread_local CurlHandle handle;
  HttpResult result;
  if (!handle.curl) {
    result.transport = HttpResult::Transport::Other;
    result.transport_error = "curl_easy_init failed";
    return result;
  }
  CURL* curl = handle.curl;
  curl_easy_reset(curl);
  HeaderList header_list;
  for (const auto& header : headers) header_list.list = curl_slist_append(header_list.list, header.c_str());
  // curl would send "Expect: 100-continue" for large bodies and wait up to a second for servers
  // that never answer it; the empty header turns that off.
  header_list.list = curl_slist_append(header_list.list, "Expect:");
  char error_buffer[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, header_list.list);
  curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.data());
  curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  if (limits.total_s > 0) curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(limits.total_s * 1000));
  Watch watch;
  watch.cancel = cancel;
  watch.idle_s = limits.idle_s;
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);  // no SIGALRM: we are multi-threaded
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error_buffer);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &result.body);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &result);
  curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, on_progress);
  curl_easy_setopt(curl, CURLOPT_XFERINFODATA, &watch);
  curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
  CURLcode code = curl_easy_perform(curl);
  if (code != CURLE_OK) {
    result.transport = watch.idle_expired ? HttpResult::Transport::Timeout : classify(code);
    result.transport_error = error_buffer[0] ? error_buffer : curl_easy_strerror(code);
    return result;
  }
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &result.status);
  return result;
}

}  // namespace llm
