#pragma once
// For the web tests: a process in the background (kforge serve, a search, chromedriver) with its
// output in a file, and a WebDriver client (the W3C protocol over HTTP, spoken to Debian's
// chromedriver) that drives a headless Chromium.

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "kforge/core/fs.h"

namespace kforge::web {

class BackgroundProcess {
 public:
  BackgroundProcess(std::vector<std::string> argv, const std::filesystem::path& cwd,
                    const std::vector<std::string>& env, const std::filesystem::path& log)
      : log_(log) {
    pid_ = fork();
    if (pid_ == 0) {
      setpgid(0, 0);
      if (chdir(cwd.c_str()) != 0) _exit(126);
      for (const auto& e : env) putenv(strdup(e.c_str()));
      std::vector<char*> args;
      for (auto& a : argv) args.push_back(a.data());
      args.push_back(nullptr);
      int out = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      dup2(out, 1);
      dup2(out, 2);
      execvp(args[0], args.data());
      _exit(127);
    }
  }
  ~BackgroundProcess() {
    if (pid_ > 0 && !exited_) {
      kill(-pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  std::string output() const {
    std::ifstream in(log_);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  // Waits until the output holds `text` (or the process ended); true when it does.
  bool wait_for_output(const std::string& text, std::chrono::seconds timeout) {
    auto end = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < end) {
      if (output().find(text) != std::string::npos) return true;
      if (ended()) return output().find(text) != std::string::npos;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }
  bool ended() {
    if (exited_) return true;
    int st = 0;
    if (waitpid(pid_, &st, WNOHANG) == pid_) {
      exited_ = true;
      status_ = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    }
    return exited_;
  }
  // Sends `sig` to the process (not its group: a clean stop is the process's own business) and
  // waits for it to end; its exit status, or -1 when it did not end in time.
  int stop(int sig, std::chrono::seconds timeout) {
    kill(pid_, sig);
    auto end = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < end) {
      if (ended()) return status_;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return -1;
  }

 private:
  pid_t pid_ = -1;
  bool exited_ = false;
  int status_ = -1;
  std::filesystem::path log_;
};

// A port nothing listens on now (bound, read, closed: no listening socket is left behind).
inline int free_port() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  int port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0)
    port = ntohs(addr.sin_port);
  close(fd);
  return port;
}

inline std::string base64_decode(const std::string& in) {
  static const std::string chars =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  int val = 0, bits = -8;
  for (char c : in) {
    auto at = chars.find(c);
    if (at == std::string::npos) continue;
    val = (val << 6) + static_cast<int>(at);
    bits += 6;
    if (bits >= 0) {
      out.push_back(static_cast<char>((val >> bits) & 0xff));
      bits -= 8;
    }
  }
  return out;
}

// A headless Chromium session through chromedriver: the one ctest started for all the browser
// tests (tests/web/browser.sh, in build/test-browser) while it answers, else one of its own.
class Browser {
 public:
  static bool available() {
    return std::filesystem::exists("/usr/bin/chromium") &&
           std::filesystem::exists("/usr/bin/chromedriver");
  }

  explicit Browser(const std::filesystem::path& dir) {
    if (!attach_shared()) start_own(dir);
  }
  ~Browser() {
    if (session_.empty()) return;
    if (shared_)
      reset();  // the next test finds a blank page and no cookie
    else
      call("DELETE", "/session/" + session_, nullptr);
  }
  // Whether this browser is ctest's shared one (for a test's log).
  bool shared() const { return shared_; }

  nlohmann::json call(const std::string& method, const std::string& path,
                      const nlohmann::json& body) {
    httplib::Result r = method == "GET"      ? client_->Get(path)
                        : method == "DELETE" ? client_->Delete(path)
                                             : client_->Post(path, body.dump(), "application/json");
    if (!r) return {{"value", {{"error", "no answer from chromedriver"}}}};
    auto j = nlohmann::json::parse(r->body, nullptr, false);
    return j.is_discarded() ? nlohmann::json{{"value", {{"error", r->body}}}} : j;
  }
  nlohmann::json session_call(const std::string& method, const std::string& path,
                              const nlohmann::json& body = nlohmann::json::object()) {
    return call(method, "/session/" + session_ + path, body);
  }

  void go(const std::string& url) { session_call("POST", "/url", {{"url", url}}); }
  // Runs `script` (a function body) in the page; its return value.
  nlohmann::json eval(const std::string& script) {
    return session_call("POST", "/execute/sync",
                        {{"script", script}, {"args", nlohmann::json::array()}})["value"];
  }
  std::string text(const std::string& css) {
    auto v = eval("const e = document.querySelector(" + nlohmann::json(css).dump() +
                  "); return e ? e.textContent : null;");
    return v.is_string() ? v.get<std::string>() : std::string();
  }
  // Waits until `condition` (a JavaScript expression) is true in the page.
  bool wait(const std::string& condition, std::chrono::seconds timeout = std::chrono::seconds(30)) {
    auto end = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < end) {
      auto v = eval("try { return !!(" + condition + "); } catch (e) { return false; }");
      if (v.is_boolean() && v.get<bool>()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  }
  std::string element(const std::string& css) {
    auto v = session_call("POST", "/element", {{"using", "css selector"}, {"value", css}})["value"];
    return v.is_object() && v.contains("element-6066-11e4-a52e-4f735466cecf")
               ? v["element-6066-11e4-a52e-4f735466cecf"].get<std::string>()
               : std::string();
  }
  // A real click (the driver's pointer), as a person would. A live page redraws what it shows (the
  // run's graph when its event stream reports a change, the launches every second), so the
  // element found may be replaced before the click reaches it ("stale element reference"): the
  // click then goes to the element the page shows now, as a person's second click would, until
  // `timeout`. Any other refusal is an answer.
  bool click(const std::string& css, std::chrono::seconds timeout = std::chrono::seconds(10)) {
    auto end = std::chrono::steady_clock::now() + timeout;
    while (true) {
      if (auto id = element(css); !id.empty()) {
        auto v = session_call("POST", "/element/" + id + "/click")["value"];
        if (v.is_null()) return true;
        if (!v.is_object() || v.value("error", "") != "stale element reference") return false;
      }
      if (std::chrono::steady_clock::now() >= end) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  bool type(const std::string& css, const std::string& text) {
    auto id = element(css);
    if (id.empty()) return false;
    session_call("POST", "/element/" + id + "/clear");
    return session_call("POST", "/element/" + id + "/value", {{"text", text}})["value"].is_null();
  }
  void screenshot(const std::filesystem::path& file) {
    auto v = session_call("GET", "/screenshot", nullptr)["value"];
    if (v.is_string()) (void)core::write_atomic(file, base64_decode(v.get<std::string>()));
  }
  bool ok() const { return !session_.empty(); }

 private:
  // The session browser.sh described in build/test-browser/session ("PORT SESSION"), when its
  // driver still knows it; cleared of cookies and blanked, as a fresh browser would be.
  bool attach_shared() {
    const char* bin = std::getenv("KFORGE_BIN_DIR");
    if (!bin || !*bin) return false;
    std::ifstream in(std::filesystem::path(bin).parent_path() / "test-browser" / "session");
    int port = 0;
    std::string session;
    if (!(in >> port >> session) || port <= 0) return false;
    client_ = std::make_unique<httplib::Client>("127.0.0.1", port);
    client_->set_read_timeout(120, 0);
    session_ = session;
    if (auto r = client_->Get("/session/" + session_ + "/url"); !r || r->status != 200) {
      session_.clear();
      client_.reset();
      return false;
    }
    shared_ = true;
    reset();
    return true;
  }

  void start_own(const std::filesystem::path& dir) {
    const int port = free_port();
    driver_ = std::make_unique<BackgroundProcess>(
        std::vector<std::string>{"/usr/bin/chromedriver", "--port=" + std::to_string(port)}, dir,
        std::vector<std::string>{}, dir / "chromedriver.log");
    client_ = std::make_unique<httplib::Client>("127.0.0.1", port);
    client_->set_read_timeout(120, 0);
    for (int i = 0; i < 200; ++i) {
      if (auto r = client_->Get("/status"); r && r->status == 200) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    // browser.sh starts the shared browser with these options.
    nlohmann::json caps = {{"capabilities",
                            {{"alwaysMatch",
                              {{"browserName", "chrome"},
                               {"goog:chromeOptions",
                                {{"binary", "/usr/bin/chromium"},
                                 {"args",
                                  {"--headless=new", "--no-sandbox", "--disable-gpu",
                                   "--disable-dev-shm-usage", "--window-size=1400,1000",
                                   "--user-data-dir=" + (dir / "chromium").string()}}}}}}}}};
    auto j = call("POST", "/session", caps);
    session_ = j["value"].value("sessionId", "");
    if (session_.empty()) ADD_FAILURE() << "chromedriver did not start a session: " << j.dump();
  }

  // A blank page (which closes the last test's event streams) and no cookie of any site (a
  // token cookie must not carry over to the next test's server, which may reuse the port).
  void reset() {
    go("about:blank");
    session_call("POST", "/goog/cdp/execute",
                 {{"cmd", "Network.clearBrowserCookies"}, {"params", nlohmann::json::object()}});
  }

  std::unique_ptr<BackgroundProcess> driver_;
  std::unique_ptr<httplib::Client> client_;
  std::string session_;
  bool shared_ = false;
};

}  // namespace kforge::web

#include "kforge/core/subprocess.h"
#include "kforge/modes/cli_test_util.h"
#include "kforge/store/store.h"

namespace kforge::web {

// A state folder with kforge serve running on it (the real binary, a free port).
class ServeScenario : public modes::CliScenario {
 protected:
  void TearDown() override {
    serve_.reset();
    modes::CliScenario::TearDown();
  }

  // Starts `kforge serve` with `extra` options; the address it printed ("" when it did not).
  std::string start_serve(std::vector<std::string> extra = {}) {
    std::vector<std::string> argv = {kforge(), "serve", "--port", "0"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    serve_ = std::make_unique<BackgroundProcess>(argv, dir_, env(), dir_ / "serve.log");
    if (!serve_->wait_for_output("kforge serve: http://", std::chrono::seconds(30))) return "";
    auto out = serve_->output();
    auto at = out.find("http://");
    std::string url = out.substr(at, out.find(' ', at) - at);
    auto colon = url.find(':', 7);
    port_ = std::atoi(url.c_str() + colon + 1);
    return url;
  }
  std::string base() const { return "http://127.0.0.1:" + std::to_string(port_); }

  // curl, sending the path exactly as written: the status code, then the body.
  std::pair<int, std::string> curl(const std::string& path,
                                   const std::vector<std::string>& options = {}) {
    std::vector<std::string> argv = {
        "curl", "-s", "--path-as-is", "-o", "-", "-w", "\n%{http_code}", "--max-time", "20"};
    argv.insert(argv.end(), options.begin(), options.end());
    argv.push_back(base() + path);
    auto r = core::run_process(argv, {.timeout = std::chrono::seconds(30)});
    auto nl = r.out.rfind('\n');
    if (nl == std::string::npos) return {0, r.out};
    return {std::atoi(r.out.substr(nl + 1).c_str()), r.out.substr(0, nl)};
  }
  std::pair<int, std::string> post(const std::string& path, const nlohmann::json& body,
                                   std::vector<std::string> options = {}) {
    options.insert(options.end(),
                   {"-X", "POST", "-H", "Content-Type: application/json", "-d", body.dump()});
    return curl(path, options);
  }

  // A saved screenshot of what the browser shows, for a person to look at after the run.
  void screenshot(Browser& b, const std::string& name) {
    auto folder =
        std::filesystem::path(std::getenv("KFORGE_BIN_DIR") ? std::getenv("KFORGE_BIN_DIR") : ".") /
        ".." / "screenshots";
    std::filesystem::create_directories(folder);
    b.screenshot(folder / (name + ".png"));
  }

  std::unique_ptr<BackgroundProcess> serve_;
  int port_ = 0;
};

}  // namespace kforge::web
