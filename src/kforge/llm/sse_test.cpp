// The event-stream parser: events arrive whole whatever the chunking (down to one byte at a
// time), with LF or CRLF line ends; comments are skipped, multi-line data is joined, event
// names are kept, an unterminated last event is delivered at the end, a reader can stop it.
#include "kforge/llm/sse.h"

#include <gtest/gtest.h>

namespace kforge::llm {
namespace {

std::vector<SseEvent> parse_in_chunks(const std::string& text, std::size_t chunk) {
  SseParser p;
  std::vector<SseEvent> out;
  auto collect = [&](const SseEvent& e) {
    out.push_back(e);
    return true;
  };
  for (std::size_t i = 0; i < text.size(); i += chunk)
    p.feed(std::string_view(text).substr(i, chunk), collect);
  p.finish(collect);
  return out;
}

TEST(Sse, SameEventsWhateverTheChunking) {
  std::string text =
      ": keep-alive\n\nevent: message_start\ndata: {\"a\":1}\n\ndata: one\ndata: two\n\ndata: "
      "[DONE]\n\n";
  for (std::size_t chunk : {1u, 2u, 7u, 1000u}) {
    auto ev = parse_in_chunks(text, chunk);
    ASSERT_EQ(ev.size(), 3u) << chunk;
    EXPECT_EQ(ev[0].event, "message_start");
    EXPECT_EQ(ev[0].data, "{\"a\":1}");
    EXPECT_EQ(ev[1].event, "");
    EXPECT_EQ(ev[1].data, "one\ntwo");
    EXPECT_EQ(ev[2].data, "[DONE]");
  }
}

TEST(Sse, CrLfLineEnds) {
  for (std::size_t chunk : {1u, 3u, 100u}) {
    auto ev = parse_in_chunks("data: {\"x\":1}\r\n\r\ndata:no-space\r\n\r\n", chunk);
    ASSERT_EQ(ev.size(), 2u) << chunk;
    EXPECT_EQ(ev[0].data, "{\"x\":1}");
    EXPECT_EQ(ev[1].data, "no-space");
  }
}

TEST(Sse, UnterminatedLastEventIsDeliveredAtTheEnd) {
  auto ev = parse_in_chunks("data: a\n\ndata: b", 4);
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[1].data, "b");
}

TEST(Sse, ReaderCanStop) {
  SseParser p;
  int seen = 0;
  bool more =
      p.feed("data: 1\n\ndata: 2\n\ndata: 3\n\n", [&](const SseEvent&) { return ++seen < 2; });
  EXPECT_FALSE(more);
  EXPECT_EQ(seen, 2);
}

}  // namespace
}  // namespace kforge::llm
