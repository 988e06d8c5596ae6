// Verdict names as they appear in JSON and tables.
#include "kforge/eval/verdict.h"

namespace kforge::eval {

namespace {
constexpr std::pair<Verdict, std::string_view> kNames[] = {
    {Verdict::correct, "correct"},
    {Verdict::incorrect, "incorrect"},
    {Verdict::compile_error, "compile_error"},
    {Verdict::link_refused, "link_refused"},
    {Verdict::runtime_error, "runtime_error"},
    {Verdict::timeout, "timeout"},
    {Verdict::sandbox_violation, "sandbox_violation"},
    {Verdict::input_modified, "input_modified"},
    {Verdict::no_device, "no_device"},
    {Verdict::interrupted, "interrupted"},
};
}  // namespace

std::string_view verdict_name(Verdict v) {
  for (const auto& [verdict, name] : kNames)
    if (verdict == v) return name;
  return "?";
}

std::optional<Verdict> parse_verdict(std::string_view name) {
  for (const auto& [verdict, n] : kNames)
    if (n == name) return verdict;
  return std::nullopt;
}

}  // namespace kforge::eval
