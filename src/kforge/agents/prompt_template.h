#pragma once
// Prompts live in text files (prompts/<name>.txt, a target's own folder such as prompts/cuda/, or
// a folder of the user's own via --prompts) with {{placeholders}}; rendering a template with a
// placeholder it was not given is an error naming the file and the placeholder, so a prompt never
// goes out with a hole in it.

#include <filesystem>
#include <map>
#include <string>

#include "kforge/core/result.h"

namespace kforge::agents {

using PromptVars = std::map<std::string, std::string>;

class PromptLibrary {
 public:
  // A template is looked up in `dir` (the user's), then in `target_dir` (the target's own), then
  // in kforge's prompts/ folder; an empty folder is skipped.
  explicit PromptLibrary(std::filesystem::path dir = {}, std::filesystem::path target_dir = {});
  Result<std::string> render(const std::string& name, const PromptVars& vars) const;
  // The file `render` would read for `name`.
  std::filesystem::path file_for(const std::string& name) const;

 private:
  std::filesystem::path dir_, target_dir_;
};

// Substitutes {{name}} in `text`; errors name `where` and the first unknown placeholder.
Result<std::string> render_template(const std::string& text, const PromptVars& vars,
                                    const std::string& where);

}  // namespace kforge::agents
