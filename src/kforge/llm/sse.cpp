// The event-stream parser (https://html.spec.whatwg.org/multipage/server-sent-events.html).
#include "kforge/llm/sse.h"

namespace kforge::llm {

bool SseParser::feed(std::string_view bytes, const std::function<bool(const SseEvent&)>& on_event) {
  pending_.append(bytes);
  std::size_t start = 0;
  for (;;) {
    std::size_t nl = pending_.find_first_of("\r\n", start);
    if (nl == std::string::npos) break;
    // "\r\n" is one line end; a lone '\r' at the end of the buffer may be followed by '\n'.
    if (pending_[nl] == '\r' && nl + 1 == pending_.size()) break;
    std::string_view l(pending_.data() + start, nl - start);
    std::size_t next = nl + 1;
    if (pending_[nl] == '\r' && pending_[nl + 1] == '\n') ++next;
    if (!line(l, on_event)) {
      pending_.erase(0, next);
      return false;
    }
    start = next;
  }
  pending_.erase(0, start);
  return true;
}

bool SseParser::finish(const std::function<bool(const SseEvent&)>& on_event) {
  if (!pending_.empty()) {
    std::string last = std::move(pending_);
    pending_.clear();
    if (!line(last, on_event)) return false;
  }
  return dispatch(on_event);
}

bool SseParser::line(std::string_view l, const std::function<bool(const SseEvent&)>& on_event) {
  if (l.empty()) return dispatch(on_event);
  if (l.front() == ':') return true;
  std::string_view field = l, value;
  if (auto colon = l.find(':'); colon != std::string_view::npos) {
    field = l.substr(0, colon);
    value = l.substr(colon + 1);
    if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  }
  if (field == "data") {
    if (has_data_) event_.data += '\n';
    event_.data.append(value);
    has_data_ = true;
  } else if (field == "event") {
    event_.event = std::string(value);
  }
  return true;
}

bool SseParser::dispatch(const std::function<bool(const SseEvent&)>& on_event) {
  if (!has_data_) {
    event_.event.clear();
    return true;
  }
  SseEvent e = std::move(event_);
  event_ = {};
  has_data_ = false;
  return on_event(e);
}

}  // namespace kforge::llm
