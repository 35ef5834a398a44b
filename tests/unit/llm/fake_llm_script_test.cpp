// The fake server's script: parsing, errors, rule order, reply queues, and the standalone binary.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include <curl/curl.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "llm/client.h"
#include "llm/config.h"
#include "support/fake_llm_server.h"

namespace {

namespace fs = std::filesystem;

size_t append_body(char* data, size_t size, size_t count, void* out) {
  static_cast<std::string*>(out)->append(data, size * count);
  return size * count;
}

// A plain HTTP exchange with the fake server's control endpoints (GET /stats, POST /script).
std::string http(const std::string& url, const std::string* post_body = nullptr) {
  CURL* curl = curl_easy_init();
  std::string body;
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, append_body);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &body);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT, 10L);
  if (post_body) curl_easy_setopt(curl, CURLOPT_POSTFIELDS, post_body->c_str());
  CURLcode code = curl_easy_perform(curl);
  curl_easy_cleanup(curl);
  return code == CURLE_OK ? body : "curl error";
}

std::string script_error(const std::string& yaml) {
  try {
    fake_llm::parse_script(yaml, "s.yaml", "");
  } catch (const fake_llm::ScriptError& error) {
    return error.what();
  }
  return "(no error)";
}

TEST(FakeLlmScript, ParsesRulesAndReplies) {
  auto script = fake_llm::parse_script(R"(
require_api_key: k
rules:
  - {name: plans, model: m1, contains: plan, api: openai, repeat_last: false,
     replies: [{status: 429, retry_after: "2"}, {text: "p", usage: {input_tokens: 5, output_tokens: 6}, delay_s: 0.5}]}
)", "s.yaml", "");
  EXPECT_EQ(script.require_api_key, "k");
  ASSERT_EQ(script.rules.size(), 1u);
  const auto& rule = script.rules[0];
  EXPECT_EQ(rule.name, "plans");
  EXPECT_FALSE(rule.repeat_last);
  ASSERT_EQ(rule.replies.size(), 2u);
  EXPECT_EQ(rule.replies[0].status, 429);
  EXPECT_EQ(*rule.replies[0].retry_after, "2");
  EXPECT_EQ(rule.replies[1].input_tokens, 5);
  EXPECT_DOUBLE_EQ(rule.replies[1].delay_s, 0.5);
}

TEST(FakeLlmScript, ErrorsNameSourceLineAndKey) {
  EXPECT_EQ(script_error("rules:\n  - {replies: [{stauts: 200}]}\n"), "s.yaml:2: rules[0].replies[0].stauts: unknown key");
  EXPECT_EQ(script_error("rules:\n  - {replies: [{status: ok}]}\n"),
            "s.yaml:2: rules[0].replies[0].status: value of the wrong type");
  EXPECT_EQ(script_error("rules:\n  - {model: m}\n"), "s.yaml:2: rules[0].replies: missing or empty");
  EXPECT_EQ(script_error("rules: [{replies: [{text_file: /nonexistent/k.py}]}]"),
            "s.yaml: rules[0].replies[0].text_file: cannot read the file");
}

TEST(FakeLlmScript, TextFilesResolveAgainstTheScriptsDirectory) {
  fs::path dir = fs::temp_directory_path() / ("accelopt_fake_" + std::to_string(::getpid()));
  fs::create_directories(dir / "kernels");
  std::ofstream(dir / "kernels" / "fast.py") << "def kernel(): pass\n";
  std::ofstream(dir / "script.yaml") << "rules: [{replies: [{text_file: kernels/fast.py}]}]\n";
  auto script = fake_llm::load_script((dir / "script.yaml").string());
  EXPECT_EQ(script.rules[0].replies[0].text, "def kernel(): pass\n");
  fs::remove_all(dir);
}

class FakeServerTest : public ::testing::Test {
 protected:
  std::string ask(const std::string& model, const std::string& user) {
    llm::EndpointConfig config;
    config.url = server_->url();
    config.model = model;
    config.max_retries = 0;
    llm::ChatRequest request;
    request.messages = {{"user", user}};
    try {
      return llm::make_client(config)->chat(request).text;
    } catch (const llm::LlmError& error) {
      return std::string("error: ") + llm::to_string(error.kind);
    }
  }
  std::unique_ptr<fake_llm::FakeLlmServer> server_;
};

TEST_F(FakeServerTest, RulesMatchInOrderAndExhaustedQueuesFallThroughOrRepeat) {
  server_ = std::make_unique<fake_llm::FakeLlmServer>(fake_llm::parse_script(R"(rules:
  - {name: once, model: planner, repeat_last: false, replies: [{text: first}]}
  - {name: planner, model: planner, replies: [{text: p1}, {text: p2}]}
  - {name: kernels, contains: kernel, replies: [{text: k}]})", "s", ""));
  server_->start();
  EXPECT_EQ(ask("planner", "plan please"), "first");
  EXPECT_EQ(ask("planner", "plan please"), "p1");
  EXPECT_EQ(ask("planner", "plan please"), "p2");
  EXPECT_EQ(ask("planner", "plan please"), "p2");  // the last reply repeats
  EXPECT_EQ(ask("executor", "write the kernel"), "k");
  EXPECT_EQ(ask("executor", "something else"), "error: bad-request");  // no rule matches
  auto stats = server_->stats();
  EXPECT_EQ(stats.requests, 6);
  EXPECT_EQ(stats.by_rule["once"], 1);
  EXPECT_EQ(stats.by_rule["planner"], 3);
  EXPECT_EQ(stats.by_model["executor"], 2);
  EXPECT_EQ(stats.unmatched, 1);
  server_->reset();
  EXPECT_EQ(server_->stats().requests, 0);
  EXPECT_EQ(ask("planner", "plan please"), "first");  // queues rewound
}

TEST(FakeLlmConfig, AgentsConfigPointsEveryAgentAtTheServer) {
  auto config = llm::parse_agents_config(fake_llm::agents_config_yaml("http://127.0.0.1:9", 2.5), "fake");
  ASSERT_EQ(config.agents.size(), 4u);
  EXPECT_EQ(config.agent("executor").model, "fake-executor");
  EXPECT_EQ(config.agent("fixer").url, "http://127.0.0.1:9");
  EXPECT_DOUBLE_EQ(config.agent("planner").timeout_s, 2.5);
  EXPECT_DOUBLE_EQ(config.agent("summarizer").usd_per_mtok_out, 2);
}

TEST_F(FakeServerTest, RequiredApiKeyIsChecked) {
  server_ = std::make_unique<fake_llm::FakeLlmServer>(
      fake_llm::parse_script("require_api_key: sk-1\nrules: [{replies: [{text: ok}]}]", "s", ""));
  server_->start();
  EXPECT_EQ(ask("m", "hi"), "error: auth");
}

// The standalone binary: --port-file, GET /stats, POST /script, clean exit on SIGTERM.
TEST(FakeLlmBinary, ServesAScriptAndReportsStats) {
  fs::path dir = fs::temp_directory_path() / ("accelopt_fakebin_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "script.yaml") << "rules: [{replies: [{text: hello, usage: {input_tokens: 7, output_tokens: 3}}]}]\n";
  std::string port_file = (dir / "port").string();
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    freopen("/dev/null", "w", stdout);
    execl(fake_llm::standalone_binary(), fake_llm::standalone_binary(), "--script", (dir / "script.yaml").c_str(), "--port-file",
          port_file.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!fs::exists(port_file) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_TRUE(fs::exists(port_file)) << "the fake server did not start";
  int port = 0;
  std::ifstream(port_file) >> port;

  llm::EndpointConfig config;
  config.url = "http://127.0.0.1:" + std::to_string(port);
  config.model = "m";
  auto response = llm::make_client(config)->chat({{{"user", "hi"}}});
  EXPECT_EQ(response.text, "hello");
  EXPECT_EQ(response.input_tokens, 7);
  auto stats = nlohmann::json::parse(http(config.url + "/stats"), nullptr, false);
  ASSERT_TRUE(stats.is_object());
  EXPECT_EQ(stats["requests"], 1);
  EXPECT_EQ(stats["input_tokens"], 7);
  EXPECT_EQ(stats["output_tokens"], 3);

  std::string new_script = R"({"rules": [{"replies": [{"text": "second script"}]}]})";
  http(config.url + "/script", &new_script);
  EXPECT_EQ(llm::make_client(config)->chat({{{"user", "hi"}}}).text, "second script");
  std::string bad_script = "rules: [{replies: []}]";
  EXPECT_NE(http(config.url + "/script", &bad_script).find("replies: missing or empty"), std::string::npos);

  kill(child, SIGTERM);
  int status = 0;
  waitpid(child, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  fs::remove_all(dir);
}

}  // namespace
