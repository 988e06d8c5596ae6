// kforge hitl TASK [--model M] [--size S] | --resume ID: the human-in-the-loop REPL. Reads
// commands from a terminal (line editing, history) or, when stdin is not a terminal, one per
// line, so sessions can be scripted.
#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>

#include "kforge/cli/commands.h"
#include "kforge/cli/common.h"
#include "kforge/cli/hitl_setup.h"
#include "kforge/cli/line_reader.h"
#include "kforge/cli/settings.h"
#include "kforge/core/fs.h"
#include "kforge/modes/hitl_session.h"

namespace kforge::cli {
namespace {

// The terminal (or pipe) as the session's human.
class CliHuman : public modes::Human {
 public:
  CliHuman(LineReader& reader, std::filesystem::path scratch)
      : reader_(reader), scratch_(std::move(scratch)) {}
  void show(std::string_view text) override {
    fmt::print("{}", text);
    std::fflush(stdout);
  }
  std::optional<std::string> ask(const std::string& prompt) override {
    return reader_.read(prompt);
  }
  std::optional<std::string> edit(const std::string& text, const std::string& file_name) override {
    auto path = scratch_ / "edit" / file_name;
    if (!core::write_atomic(path, text)) return std::nullopt;
    std::string command = fmt::format("{} '{}'", current_settings().editor, path.string());
    if (std::system(command.c_str()) != 0) return std::nullopt;
    auto edited = core::read_text(path);
    if (!edited) return std::nullopt;
    return *edited;
  }

 private:
  LineReader& reader_;
  std::filesystem::path scratch_;
};

int run_hitl(const HitlCliOptions& o) {
  auto setup = open_hitl(o, [](const std::string& line) { fmt::print("{}", line); });
  auto& journal = *setup->journal;
  auto reader = make_line_reader(journal.dir() / "history");
  CliHuman human(*reader, journal.dir());
  auto session_ptr = setup->make_session(human);
  auto& session = *session_ptr;
  for (;;) {
    auto line = reader->read(session.prompt());
    if (!line) break;
    bool go_on = session.execute(*line);
    llm::clear_interrupt();  // Ctrl-C cancels the step in flight, not the session
    if (!go_on) break;
  }
  setup->finish();
  fmt::print("session {} saved; resume with: kforge hitl --resume {}\n", session.state().run_id,
             session.state().run_id);
  return 0;
}

}  // namespace

void add_hitl(CommandLine& cmd) {
  auto o = std::make_shared<HitlCliOptions>();
  cmd.bind("task", o->task);
  cmd.bind("resume", o->resume);
  cmd.bind("model", o->model);
  cmd.bind("size", o->size);
  cmd.bind("threads", o->threads);
  cmd.bind("beat", o->beat);
  cmd.bind("target", o->target);
  cmd.bind("dtype", o->dtype);
  cmd.bind("budget", o->budget);
  cmd.bind("max-usd", o->max_usd);
  cmd.bind("max-tokens", o->max_tokens);
  cmd.bind("prompts", o->prompts);
  cmd.bind("config", o->config);
  cmd.on_run([o] { return run_hitl(*o); });
}

}  // namespace kforge::cli
