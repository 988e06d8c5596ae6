// objdump's listing parsed, the samples charged to its instructions, and the bounded text the
// profiler reads.
#include "kforge/eval/hot_instructions.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>

#include "kforge/core/subprocess.h"

namespace kforge::eval {
namespace {

// Caps that keep the profiler's request lean: 12 + 7 lines of ~75 bytes and a header; with
// several long function names the top list is cut to fit the budget.
constexpr std::size_t kTextChars = 48;
constexpr std::size_t kFunctionChars = 32;
constexpr std::size_t kTextBudget = 1536;

std::string trim(std::string_view s) {
  auto b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos) return {};
  auto e = s.find_last_not_of(" \t\r");
  return std::string(s.substr(b, e - b + 1));
}

std::string cut(const std::string& s, std::size_t n) {
  return s.size() <= n ? s : s.substr(0, n - 3) + "...";
}

bool is_hex(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isxdigit(static_cast<unsigned char>(c));
  });
}

// "mov    rdx,rdi   # 2000 <x>" (GNU) or "mov\trdx, rdi # 0x2000 <x>" (LLVM) → "mov rdx,rdi":
// the comment and a branch target's symbol go, runs of blanks become one space, and Intel
// syntax's " PTR" goes ("YMMWORD [rax]" says as much in fewer bytes of the model's request).
std::string clean_instruction(std::string_view raw) {
  std::string s(raw.substr(0, raw.find('#')));
  if (auto sym = s.find(" <"); sym != std::string::npos) s.erase(sym);
  for (const char* ptr : {" PTR ", " ptr "})
    for (auto at = s.find(ptr); at != std::string::npos; at = s.find(ptr, at)) s.erase(at, 4);
  std::string out;
  for (char c : s) {
    if (c == '\t') c = ' ';
    if (c == ' ' && (out.empty() || out.back() == ' ')) continue;
    out += c;
  }
  return trim(out);
}

// "0000000000001100 <kernel._omp_fn.0>:" → the name, or nullopt for any other line.
std::optional<std::string> function_header(std::string_view line) {
  auto space = line.find(' ');
  if (space == std::string_view::npos || !is_hex(line.substr(0, space))) return std::nullopt;
  auto rest = line.substr(space + 1);
  if (!rest.starts_with('<') || !rest.ends_with(">:")) return std::nullopt;
  return std::string(rest.substr(1, rest.size() - 3));
}

// The instruction at `offset`, or the one whose bytes contain it (up to the next one printed).
const Instruction* instruction_at(const std::vector<Instruction>& code, std::uint64_t offset) {
  auto it = std::upper_bound(code.begin(), code.end(), offset,
                             [](std::uint64_t o, const Instruction& i) { return o < i.offset; });
  if (it == code.begin()) return nullptr;
  const Instruction* at = &*std::prev(it);
  // Past the last instruction printed, only an x86 instruction's longest length still belongs.
  std::uint64_t end = it != code.end() ? it->offset : at->offset + 15;
  return offset < end ? at : nullptr;
}

HotInstruction hot(const Instruction& i, long samples, long total) {
  return {i.offset, samples,
          total > 0 ? static_cast<double>(samples) / static_cast<double>(total) : 0, i.function,
          i.text};
}

std::vector<std::string> disassembler_command(const std::string& tool, const std::string& object) {
  std::vector<std::string> argv = {tool, "-d", "--no-show-raw-insn", "-C"};
#if defined(__x86_64__)
  // Intel syntax: destination first, as the intrinsics guide and most tuning advice write it.
  argv.insert(argv.end(), {"-M", "intel"});
#endif
  argv.push_back(object);
  return argv;
}

std::string first_line(const std::string& s) {
  std::string l = trim(s.substr(0, s.find('\n')));
  return l.empty() ? "no message" : cut(l, 160);
}

}  // namespace

std::vector<Instruction> parse_disassembly(std::string_view listing) {
  std::vector<Instruction> code;
  std::string function;
  std::size_t start = 0;
  while (start < listing.size()) {
    std::size_t end = std::min(listing.find('\n', start), listing.size());
    std::string_view line = listing.substr(start, end - start);
    start = end + 1;
    if (auto name = function_header(line)) {
      function = *name;
      continue;
    }
    // "    1100:\tvmovdqa ymm7,…": an address, a colon, the instruction.
    auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string address = trim(line.substr(0, colon));
    if (!is_hex(address) || line.substr(0, colon).find_first_not_of(" \t") == 0) continue;
    std::string text = clean_instruction(line.substr(colon + 1));
    if (text.empty()) continue;
    code.push_back({std::stoull(address, nullptr, 16), function, std::move(text)});
  }
  std::stable_sort(code.begin(), code.end(),
                   [](const auto& a, const auto& b) { return a.offset < b.offset; });
  return code;
}

HotInstructions attribute_samples(const std::vector<Instruction>& code,
                                  const std::vector<std::pair<std::uint64_t, long>>& offsets,
                                  long total_samples) {
  HotInstructions h;
  h.total_samples = total_samples;
  std::map<const Instruction*, long> charged;
  for (const auto& [offset, samples] : offsets) {
    h.kernel_samples += samples;
    if (const Instruction* at = instruction_at(code, offset)) {
      charged[at] += samples;
      h.attributed += samples;
    }
  }
  for (const auto& [at, samples] : charged) h.top.push_back(hot(*at, samples, total_samples));
  std::sort(h.top.begin(), h.top.end(), [](const auto& a, const auto& b) {
    return a.samples != b.samples ? a.samples > b.samples : a.offset < b.offset;
  });
  if (h.top.size() > HotInstructions::kTop) h.top.resize(HotInstructions::kTop);
  if (h.attributed < h.kernel_samples)
    h.note = fmt::format("{} of the kernel's {} samples fell outside the disassembled code",
                         h.kernel_samples - h.attributed, h.kernel_samples);
  if (h.top.empty()) return h;

  // The hottest one's neighbours within its function: the loads feeding it, what waits on it.
  const Instruction* hottest = instruction_at(code, h.top.front().offset);
  auto i = static_cast<std::size_t>(hottest - code.data());
  std::size_t lo = i, hi = i;
  while (lo > 0 && i - lo < HotInstructions::kAround && code[lo - 1].function == hottest->function)
    --lo;
  while (hi + 1 < code.size() && hi - i < HotInstructions::kAround &&
         code[hi + 1].function == hottest->function)
    ++hi;
  for (std::size_t k = lo; k <= hi; ++k) {
    auto it = charged.find(&code[k]);
    h.around.push_back(hot(code[k], it == charged.end() ? 0 : it->second, total_samples));
  }
  return h;
}

HotInstructions hot_instructions_from_samples(const nlohmann::json& kernel_offsets,
                                              long total_samples, const std::string& shared_object,
                                              const DisassemblerOptions& options) {
  std::vector<std::pair<std::uint64_t, long>> offsets;
  // The runner's report is the kernel's to forge: entries of the wrong shape are skipped.
  for (const auto& o : kernel_offsets)
    if (o.is_array() && o.size() == 2 && o[0].is_number_unsigned() && o[1].is_number_integer())
      offsets.emplace_back(o[0].get<std::uint64_t>(), o[1].get<long>());
  HotInstructions none;
  none.total_samples = total_samples;
  for (const auto& [offset, samples] : offsets) none.kernel_samples += samples;
  if (offsets.empty()) return none;

  std::vector<std::string> tried;
  for (const auto& tool : options.tools) {
    auto r = core::run_process(disassembler_command(tool, shared_object),
                               {.timeout = options.timeout, .capture_limit = 64 << 20});
    if (r.spawn_failed) {
      tried.push_back(tool);
      continue;
    }
    none.tool = tool;
    if (!r.success()) {
      none.note = fmt::format("hot instructions not shown: {} {}: {}", tool, r.describe(),
                              first_line(r.err));
      return none;
    }
    auto code = parse_disassembly(r.out);
    if (code.empty()) {
      none.note =
          fmt::format("hot instructions not shown: {} found no code in the kernel's object", tool);
      return none;
    }
    HotInstructions h = attribute_samples(code, offsets, total_samples);
    h.tool = tool;
    return h;
  }
  none.note = fmt::format("hot instructions not shown: no disassembler on PATH (tried {})",
                          fmt::join(tried, ", "));
  return none;
}

std::string HotInstructions::text() const {
  std::string tail = note.empty() ? "" : "  (" + note + ")\n";
  if (top.empty()) return tail;
  // A timer sample lands on the instruction due to retire next: a slow load's wait often shows
  // on the instruction after it, which the neighbourhood lets the reader see.
  std::string head = fmt::format(
      "hot instructions ({}{}; samples, share of all {}; a sample marks the instruction due to "
      "retire, often the one after a slow load):\n",
      why.empty() ? "" : why + "; ", tool, total_samples);
  const std::string& hottest = top.front().function;
  std::string near = fmt::format("  around the hottest, in {}:\n",
                                 hottest.empty() ? "(no symbol)" : cut(hottest, kFunctionChars));
  for (const auto& a : around)
    near +=
        fmt::format("  {:>5} {} {:#7x}  {}\n", a.samples ? std::to_string(a.samples) : "",
                    a.offset == top.front().offset ? ">" : " ", a.offset, cut(a.text, kTextChars));
  const bool one_function =
      std::all_of(top.begin(), top.end(), [&](const auto& t) { return t.function == hottest; });
  // The hottest first, as many as the budget holds beside the header and the neighbourhood.
  std::string rows;
  for (const auto& t : top) {
    std::string row = fmt::format(
        "  {:>5} {:5.1f}% {:#7x}  {}{}\n", t.samples, 100 * t.share, t.offset,
        cut(t.text, kTextChars), one_function ? "" : "  [" + cut(t.function, kFunctionChars) + "]");
    if (head.size() + rows.size() + row.size() + near.size() + tail.size() > kTextBudget) break;
    rows += row;
  }
  return head + rows + near + tail;
}

nlohmann::json to_json(const HotInstructions& h) {
  auto rows = [](const std::vector<HotInstruction>& v) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& i : v)
      out.push_back({{"offset", i.offset},
                     {"samples", i.samples},
                     {"share", i.share},
                     {"function", i.function},
                     {"instruction", i.text}});
    return out;
  };
  return {{"why", h.why},
          {"tool", h.tool},
          {"total_samples", h.total_samples},
          {"kernel_samples", h.kernel_samples},
          {"attributed", h.attributed},
          {"top", rows(h.top)},
          {"around", rows(h.around)},
          {"note", h.note}};
}

HotInstructions hot_instructions_from_json(const nlohmann::json& j) {
  HotInstructions h;
  if (!j.is_object()) return h;
  auto rows = [&](const char* key) {
    std::vector<HotInstruction> out;
    for (const auto& i : j.value(key, nlohmann::json::array()))
      out.push_back({i.value("offset", std::uint64_t{0}), i.value("samples", 0L),
                     i.value("share", 0.0), i.value("function", ""), i.value("instruction", "")});
    return out;
  };
  h.why = j.value("why", "");
  h.tool = j.value("tool", "");
  h.total_samples = j.value("total_samples", 0L);
  h.kernel_samples = j.value("kernel_samples", 0L);
  h.attributed = j.value("attributed", 0L);
  h.top = rows("top");
  h.around = rows("around");
  h.note = j.value("note", "");
  return h;
}

}  // namespace kforge::eval
