// The bash completion script (and zsh's, which runs it through bashcompinit): the model as
// associative arrays, and one function that walks the words typed so far.
#include "kforge/cli/completion.h"

#include <fmt/format.h>

#include <cctype>

namespace kforge::cli {
namespace {

// Keys are words joined by '/' and ':' (no spaces, no quotes), so they read the same in bash and
// in zsh: "kforge/eval" a command, "kforge/eval:--size" an option, "kforge/eval:1" a positional.
std::string key_of(const std::vector<std::string>& path) {
  std::string k;
  for (const auto& w : path) k += (k.empty() ? "" : "/") + w;
  return k;
}

std::string single_quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

// What the script offers for a value: @files, @tasks, @sizes, @any, or the words themselves.
std::string values_word(const CompletionArg& a) {
  switch (a.values) {
    case Values::none:
      return "";
    case Values::any:
      return "@any";
    case Values::files:
      return "@files";
    case Values::tasks:
      return "@tasks";
    case Values::sizes:
      return "@sizes";
    case Values::choices:
      return joined(a.choices);
  }
  return "";
}

std::string data(const std::vector<CompletionCommand>& model, const std::string& fn) {
  std::string s = fmt::format("typeset -gA {0}_commands {0}_options {0}_values {0}_repeats\n", fn);
  for (const auto& c : model) {
    const std::string key = key_of(c.path);
    if (!c.subcommands.empty())
      s += fmt::format("{}_commands[{}]={}\n", fn, key, single_quoted(joined(c.subcommands)));
    std::vector<std::string> names;
    for (const auto& o : c.options) {
      names.insert(names.end(), o.names.begin(), o.names.end());
      if (o.arg.values == Values::none) continue;
      for (const auto& n : o.names)
        s += fmt::format("{}_values[{}:{}]={}\n", fn, key, n, single_quoted(values_word(o.arg)));
    }
    s += fmt::format("{}_options[{}]={}\n", fn, key, single_quoted(joined(names)));
    for (std::size_t i = 0; i < c.positionals.size(); ++i)
      s += fmt::format("{}_values[{}:{}]={}\n", fn, key, i + 1,
                       single_quoted(values_word(c.positionals[i])));
    if (c.last_repeats) s += fmt::format("{}_repeats[{}]={}\n", fn, key, c.positionals.size());
  }
  return s;
}

// {0}: the function's name, {1}: the program. Task ids and size names are asked of the program
// itself when completing, so they follow the suite of the folder one is in.
constexpr const char* kFunctions = R"sh(
{0}_offer() {{  # $1: what to offer (@files, @tasks, @sizes, @any, or words), $2: the word typed, $3: the program
  local IFS=$' \t\n'
  case $1 in
    @any) COMPREPLY=() ;;
    @files) IFS=$'\n'; COMPREPLY=($(compgen -f -- "$2")); compopt -o filenames 2>/dev/null ;;
    @tasks) COMPREPLY=($(compgen -W "$("$3" completion --candidates tasks 2>/dev/null)" -- "$2")) ;;
    @sizes) COMPREPLY=($(compgen -W "$("$3" completion --candidates sizes 2>/dev/null)" -- "$2")) ;;
    *) COMPREPLY=($(compgen -W "$1" -- "$2")) ;;
  esac
}}

{0}() {{
  local cur=${{COMP_WORDS[COMP_CWORD]}} prev=${{COMP_WORDS[COMP_CWORD-1]}} self=${{COMP_WORDS[0]}}
  [[ $self == '~/'* ]] && self=$HOME/${{self#'~/'}}
  # The words before the cursor: a command's name extends the command (before any positional);
  # an option that takes a value skips it (and the '=' bash splits off); "--" ends the options;
  # anything else is a positional.
  local cmd={1} n=0 i=1 w options=1
  while (( i < COMP_CWORD )); do
    w=${{COMP_WORDS[i]}}
    if (( options )) && [[ $w == -- ]]; then
      options=0
    elif (( options )) && [[ $w == -?* ]]; then
      if [[ -n ${{{0}_values[${{cmd}}:$w]}} ]]; then
        if [[ ${{COMP_WORDS[i+1]}} == = ]]; then (( i += 2 )); else (( i += 1 )); fi
      fi
    elif (( n == 0 )) && [[ " ${{{0}_commands[$cmd]}} " == *" $w "* ]]; then
      cmd=$cmd/$w
    else
      (( n += 1 ))
    fi
    (( i += 1 ))
  done
  # The value of an option: "--size <TAB>", "--size=<TAB>", "--size=c<TAB>".
  local option=
  if [[ $cur == = ]]; then option=$prev; cur=
  elif [[ $prev == = ]] && (( COMP_CWORD > 1 )); then option=${{COMP_WORDS[COMP_CWORD-2]}}
  elif (( options )) && [[ $prev == -?* ]]; then option=$prev
  fi
  if [[ -n $option && -n ${{{0}_values[${{cmd}}:$option]}} ]]; then
    {0}_offer "${{{0}_values[${{cmd}}:$option]}}" "$cur" "$self"
  elif (( options )) && [[ $cur == -* ]]; then
    {0}_offer "${{{0}_options[$cmd]}}" "$cur" "$self"
  elif (( n == 0 )) && [[ -n ${{{0}_commands[$cmd]}} ]]; then
    {0}_offer "${{{0}_commands[$cmd]}}" "$cur" "$self"
  else
    local at=$(( n + 1 )) last=${{{0}_repeats[$cmd]}}
    [[ -n $last ]] && (( at > last )) && at=$last
    [[ -n ${{{0}_values[${{cmd}}:$at]}} ]] && {0}_offer "${{{0}_values[${{cmd}}:$at]}}" "$cur" "$self"
  fi
  return 0
}}

complete -F {0} {1}
)sh";

std::string function_name(const std::string& program) {
  std::string name = "_";
  for (char c : program) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return name;
}

}  // namespace

std::string bash_completion(const std::vector<CompletionCommand>& model,
                            const std::string& program) {
  const std::string fn = function_name(program);
  return fmt::format(
             "# bash completion for {0}, generated by `{0} completion bash` from its own commands "
             "and options.\n"
             "# Install: {0} completion bash > ~/.local/share/bash-completion/completions/{0}\n\n",
             program) +
         data(model, fn) + fmt::format(kFunctions, fn, program);
}

// zsh runs the same script through bashcompinit: one completion logic, tested under bash.
std::string zsh_completion(const std::vector<CompletionCommand>& model,
                           const std::string& program) {
  return fmt::format(
             "# zsh completion for {0}, generated by `{0} completion zsh`: the bash completion, "
             "run by zsh's bashcompinit.\n"
             "# Install: add `source <({0} completion zsh)` to ~/.zshrc, after compinit.\n"
             "autoload -U +X bashcompinit && bashcompinit\n\n",
             program) +
         data(model, function_name(program)) +
         fmt::format(kFunctions, function_name(program), program);
}

}  // namespace kforge::cli
