#pragma once
// Server-sent events (the text/event-stream format every streaming provider uses): bytes in,
// whole events out, whatever the chunking. "event:" names an event, "data:" lines are joined
// with '\n', a blank line ends the event, lines starting with ':' are comments.

#include <functional>
#include <string>
#include <string_view>

namespace kforge::llm {

struct SseEvent {
  std::string event;  // empty when the server gave no "event:" line
  std::string data;
};

class SseParser {
 public:
  // Calls on_event for each event completed by these bytes; stops early (returning false) when
  // on_event returns false.
  bool feed(std::string_view bytes, const std::function<bool(const SseEvent&)>& on_event);
  // The stream ended: an event still missing its blank line is delivered too.
  bool finish(const std::function<bool(const SseEvent&)>& on_event);

 private:
  bool line(std::string_view line, const std::function<bool(const SseEvent&)>& on_event);
  bool dispatch(const std::function<bool(const SseEvent&)>& on_event);

  std::string pending_;  // an incomplete line
  SseEvent event_;
  bool has_data_ = false;
};

}  // namespace kforge::llm
