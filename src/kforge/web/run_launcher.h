#pragma once
// Runs started from the page: `kforge auto` or `kforge search` as a child process of the server
// (the same binary and command line a terminal would run, so no mode has a second
// implementation), its output kept in a log under the state folder, its run found in the store
// by the process that owns it, and a stop that is the terminal's Ctrl-C (SIGINT: the run saves
// what it has and ends as interrupted, resumable).

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kforge/core/result.h"
#include "kforge/store/database.h"

namespace kforge::web {

struct LaunchRequest {
  std::string mode;  // "auto" or "search"
  std::string task, size, model;
  int iterations = 0;     // auto: --iterations (0: its default)
  std::string algorithm;  // search: --algorithm ("" = its default)
  int width = 0;          // search: --width (0: its default)
  double budget = 0;      // --budget (0: the default)

  // From a page's JSON; an error naming the bad field. Nothing in it may start with '-' (it
  // could not become an option of the command line).
  static Result<LaunchRequest> from_json(const nlohmann::json& j);
  std::vector<std::string> arguments() const;  // after the binary's name
};

class RunLauncher {
 public:
  RunLauncher(std::filesystem::path binary, std::filesystem::path state_dir);
  ~RunLauncher();  // stops what still runs, as stop_all
  RunLauncher(const RunLauncher&) = delete;
  RunLauncher& operator=(const RunLauncher&) = delete;

  Result<int> launch(const LaunchRequest& request);  // the launch's number
  Status stop(int number);                           // SIGINT, as Ctrl-C in a terminal
  // Every launch: number, command, pid, running or its exit status, the run it made, its log's
  // tail.
  nlohmann::json list(store::Database& db);
  // SIGINT to every running launch, then waits (bounded) for them to end.
  void stop_all();

 private:
  struct Launch {
    int number = 0;
    pid_t pid = -1;
    std::vector<std::string> argv;
    std::filesystem::path log;
    bool ended = false;
    int exit_status = -1;
    std::string run_id;
  };
  void reap(Launch& l);

  std::filesystem::path binary_, state_dir_;
  std::mutex mu_;
  std::map<int, Launch> launches_;
  int next_ = 1;
};

}  // namespace kforge::web
