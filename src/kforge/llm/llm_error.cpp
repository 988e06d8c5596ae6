// Error kind names, as they appear in transcripts, the store and --json output.
#include "kforge/llm/llm_error.h"

namespace kforge::llm {
namespace {

constexpr std::pair<ErrorKind, std::string_view> kNames[] = {
    {ErrorKind::config, "config"},
    {ErrorKind::auth, "auth"},
    {ErrorKind::bad_request, "bad_request"},
    {ErrorKind::rate_limited, "rate_limited"},
    {ErrorKind::server, "server"},
    {ErrorKind::network, "network"},
    {ErrorKind::timeout, "timeout"},
    {ErrorKind::malformed, "malformed"},
    {ErrorKind::truncated, "truncated"},
    {ErrorKind::cancelled, "cancelled"},
    {ErrorKind::budget_exhausted, "budget_exhausted"},
    {ErrorKind::diverged, "diverged"},
};

}  // namespace

std::string_view error_kind_name(ErrorKind kind) {
  for (const auto& [k, name] : kNames)
    if (k == kind) return name;
  return "?";
}

std::optional<ErrorKind> parse_error_kind(std::string_view name) {
  for (const auto& [k, n] : kNames)
    if (n == name) return k;
  return std::nullopt;
}

}  // namespace kforge::llm
