// {{name}} substitution over template files.
#include "kforge/agents/prompt_template.h"

#include <fmt/format.h>

#include "kforge/core/fs.h"
#include "kforge/core/paths.h"

namespace kforge::agents {

PromptLibrary::PromptLibrary(std::filesystem::path dir, std::filesystem::path target_dir)
    : dir_(std::move(dir)), target_dir_(std::move(target_dir)) {}

std::filesystem::path PromptLibrary::file_for(const std::string& name) const {
  std::error_code ec;
  for (const auto& d : {dir_, target_dir_})
    if (!d.empty() && std::filesystem::exists(d / (name + ".txt"), ec)) return d / (name + ".txt");
  return core::source_dir() / "prompts" / (name + ".txt");
}

Result<std::string> PromptLibrary::render(const std::string& name, const PromptVars& vars) const {
  const auto file = file_for(name);
  auto text = core::read_text(file);
  if (!text) return text.error();
  return render_template(*text, vars, file.string());
}

Result<std::string> render_template(const std::string& text, const PromptVars& vars,
                                    const std::string& where) {
  std::string out;
  out.reserve(text.size() * 2);
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t open = text.find("{{", pos);
    if (open == std::string::npos) {
      out.append(text, pos, std::string::npos);
      break;
    }
    std::size_t close = text.find("}}", open + 2);
    if (close == std::string::npos) return Error{fmt::format("{}: '{{{{' without '}}}}'", where)};
    out.append(text, pos, open - pos);
    std::string name = text.substr(open + 2, close - open - 2);
    auto it = vars.find(name);
    if (it == vars.end())
      return Error{fmt::format("{}: the template uses {{{{{}}}}}, which kforge does not provide",
                               where, name)};
    out += it->second;
    pos = close + 2;
  }
  return out;
}

}  // namespace kforge::agents
