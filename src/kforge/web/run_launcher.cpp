// Starting, following and stopping auto and search runs from the page.
#include "kforge/web/run_launcher.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <string_view>
#include <thread>

extern char** environ;

#include "kforge/store/runs.h"

namespace kforge::web {
namespace {

bool safe_word(const std::string& s) { return s.empty() || s[0] != '-'; }

std::string tail_of(const std::filesystem::path& file, std::size_t bytes) {
  std::ifstream in(file, std::ios::binary | std::ios::ate);
  if (!in) return "";
  auto size = static_cast<std::size_t>(in.tellg());
  auto start = size > bytes ? size - bytes : 0;
  in.seekg(static_cast<std::streamoff>(start));
  std::string text(size - start, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  return text;
}

// The pid field of a run's owner ("host|boot id|pid|start ticks").
std::string owner_pid(const std::string& owner) {
  auto a = owner.find('|');
  auto b = a == std::string::npos ? a : owner.find('|', a + 1);
  auto c = b == std::string::npos ? b : owner.find('|', b + 1);
  return c == std::string::npos ? "" : owner.substr(b + 1, c - b - 1);
}

}  // namespace

Result<LaunchRequest> LaunchRequest::from_json(const nlohmann::json& j) {
  LaunchRequest r;
  auto text = [&](const char* key, std::string& out) -> Status {
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) return Ok{};
    if (!it->is_string()) return Error{fmt::format("{}: not a string", key)};
    out = it->get<std::string>();
    if (!safe_word(out)) return Error{fmt::format("{}: may not start with '-'", key)};
    return Ok{};
  };
  auto number = [&](const char* key, auto& out, double low, double high) -> Status {
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) return Ok{};
    if (!it->is_number()) return Error{fmt::format("{}: not a number", key)};
    double v = it->get<double>();
    if (v != 0 && (v < low || v > high))
      return Error{fmt::format("{}: {} is outside {}..{}", key, v, low, high)};
    out = static_cast<std::remove_reference_t<decltype(out)>>(v);
    return Ok{};
  };
  for (const auto& st :
       {text("mode", r.mode), text("task", r.task), text("size", r.size), text("model", r.model),
        text("algorithm", r.algorithm), number("iterations", r.iterations, 1, 1000),
        number("width", r.width, 1, 64), number("budget", r.budget, 0.05, 600)})
    if (!st) return st.error();
  if (r.mode != "auto" && r.mode != "search")
    return Error{fmt::format("mode: '{}' (auto or search)", r.mode)};
  if (r.task.empty()) return Error{"task: which task to optimize"};
  return r;
}

std::vector<std::string> LaunchRequest::arguments() const {
  std::vector<std::string> a = {mode, task};
  if (!size.empty()) a.insert(a.end(), {"--size", size});
  if (!model.empty()) a.insert(a.end(), {"--model", model});
  if (budget > 0) a.insert(a.end(), {"--budget", fmt::format("{}", budget)});
  if (mode == "auto" && iterations > 0)
    a.insert(a.end(), {"--iterations", std::to_string(iterations)});
  if (mode == "search" && !algorithm.empty()) a.insert(a.end(), {"--algorithm", algorithm});
  if (mode == "search" && width > 0) a.insert(a.end(), {"--width", std::to_string(width)});
  return a;
}

RunLauncher::RunLauncher(std::filesystem::path binary, std::filesystem::path state_dir)
    : binary_(std::move(binary)), state_dir_(std::move(state_dir)) {}

RunLauncher::~RunLauncher() { stop_all(); }

Result<int> RunLauncher::launch(const LaunchRequest& request) {
  std::lock_guard lock(mu_);
  Launch l;
  l.number = next_++;
  l.argv = request.arguments();
  l.argv.insert(l.argv.begin(), binary_.string());
  auto folder = state_dir_ / "serve";
  std::error_code ec;
  std::filesystem::create_directories(folder, ec);
  l.log = folder / fmt::format("launch-{}-{}.log", ::getpid(), l.number);
  int out = ::open(l.log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (out < 0) return Error{fmt::format("cannot write {}", l.log.string())};
  std::vector<char*> args;
  for (auto& a : l.argv) args.push_back(a.data());
  args.push_back(nullptr);
  // Its environment, made before fork (the child may only exec): the server's, with progress lines
  // on although the log is not a terminal.
  std::vector<std::string> env_text = {"KFORGE_PROGRESS=1"};
  for (char** e = environ; *e; ++e)
    if (std::string_view(*e).rfind("KFORGE_PROGRESS=", 0) != 0) env_text.emplace_back(*e);
  std::vector<char*> envp;
  envp.reserve(env_text.size() + 1);
  for (auto& e : env_text) envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) {
    ::close(out);
    return Error{"fork failed"};
  }
  if (pid == 0) {
    // Its own process group: a Ctrl-C in the server's terminal reaches the server, which stops
    // its runs itself.
    ::setpgid(0, 0);
    ::dup2(out, 1);
    ::dup2(out, 2);
    int in = ::open("/dev/null", O_RDONLY);
    ::dup2(in, 0);
    ::execve(args[0], args.data(), envp.data());
    const char* why = "kforge serve: could not start the run (exec failed)\n";
    (void)!::write(2, why, std::strlen(why));
    ::_exit(127);
  }
  ::close(out);
  l.pid = pid;
  int number = l.number;
  launches_.emplace(number, std::move(l));
  return number;
}

void RunLauncher::reap(Launch& l) {
  if (l.ended) return;
  int st = 0;
  if (::waitpid(l.pid, &st, WNOHANG) == l.pid) {
    l.ended = true;
    l.exit_status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  }
}

Status RunLauncher::stop(int number) {
  std::lock_guard lock(mu_);
  auto it = launches_.find(number);
  if (it == launches_.end()) return Error{fmt::format("no launch {}", number)};
  reap(it->second);
  if (it->second.ended) return Error{fmt::format("launch {} has ended already", number)};
  ::kill(it->second.pid, SIGINT);
  return Ok{};
}

nlohmann::json RunLauncher::list(store::Database& db) {
  std::lock_guard lock(mu_);
  std::vector<store::RunRecord> runs;
  if (auto r = store::list_runs(db)) runs = *r;
  nlohmann::json out = nlohmann::json::array();
  for (auto& [number, l] : launches_) {
    reap(l);
    if (l.run_id.empty())
      for (const auto& r : runs)
        if (owner_pid(r.owner) == std::to_string(l.pid)) l.run_id = r.id;
    std::string command = "kforge";
    for (std::size_t i = 1; i < l.argv.size(); ++i) command += " " + l.argv[i];
    out.push_back({{"number", number},
                   {"command", command},
                   {"pid", l.pid},
                   {"running", !l.ended},
                   {"exit_status", l.ended ? nlohmann::json(l.exit_status) : nlohmann::json()},
                   {"run_id", l.run_id},
                   {"log", tail_of(l.log, 4000)}});
  }
  return out;
}

void RunLauncher::stop_all() {
  std::lock_guard lock(mu_);
  for (auto& [n, l] : launches_) {
    reap(l);
    if (!l.ended) ::kill(l.pid, SIGINT);
  }
  auto end = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  for (auto& [n, l] : launches_) {
    while (!l.ended && std::chrono::steady_clock::now() < end) {
      reap(l);
      if (!l.ended) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    if (!l.ended) {
      ::kill(-l.pid, SIGKILL);
      ::waitpid(l.pid, nullptr, 0);
      l.ended = true;
    }
  }
}

}  // namespace kforge::web
