// task.toml → TaskSpec. Every rule that a task must obey is checked here, once, so the rest of
// kforge can trust a TaskSpec: known dtypes and distributions, shapes that resolve for every size,
// unique names, the sources that must exist.
#include "kforge/core/task_loader.h"

#include <fmt/format.h>

#include <toml++/toml.h>
#include <algorithm>
#include <cmath>
#include <set>

#include "kforge/core/fs.h"
#include "kforge/core/task_resolve.h"
#include "kforge/core/toml_checker.h"

namespace kforge::core {
namespace {

// The shared checker (file, line and key of the first mistake; unknown keys named with their
// table), with the task file's own kinds of value.
class Checker : public TomlChecker {
 public:
  using TomlChecker::TomlChecker;

  std::string require_string(const toml::table& t, std::string_view key, const std::string& field) {
    const toml::node* n = t.get(key);
    if (!n) {
      fail(&t, field, "missing");
      return {};
    }
    if (!n->is_string()) {
      fail(n, field, "must be a string");
      return {};
    }
    return n->as_string()->get();
  }

  std::string optional_string(const toml::table& t, std::string_view key,
                              const std::string& field) {
    const toml::node* n = t.get(key);
    if (!n) return {};
    if (!n->is_string()) {
      fail(n, field, "must be a string");
      return {};
    }
    return n->as_string()->get();
  }

  double number(const toml::node* n, const std::string& field) {
    return TomlChecker::number(*n, field);
  }

  // A tolerance: TOML allows inf and nan, but either would make every comparison pass (or fail).
  double tolerance(const toml::node* n, const std::string& field) {
    double v = number(n, field);
    if (!std::isfinite(v))
      fail(n, field, fmt::format("must be a finite number, not {}", v));
    else if (v < 0)
      fail(n, field, fmt::format("must not be negative, is {}", v));
    return v;
  }
};

const toml::table* table_at(Checker& c, const toml::table& root, std::string_view key) {
  const toml::node* n = root.get(key);
  if (!n) return nullptr;
  if (!n->is_table()) {
    c.fail(n, std::string(key), "must be a table");
    return nullptr;
  }
  return n->as_table();
}

void parse_sizes(Checker& c, const toml::table& root, TaskSpec& spec) {
  const toml::table* sizes = table_at(c, root, "sizes");
  if (!sizes || sizes->empty()) {
    c.fail(&root, "sizes", "at least one size preset ([sizes.ci], [sizes.cpu], ...) is required");
    return;
  }
  for (const auto& [name, node] : *sizes) {
    std::string field = fmt::format("sizes.{}", name.str());
    if (!node.is_table()) {
      c.fail(&node, field, "must be a table of symbol = integer");
      continue;
    }
    SizePreset preset{std::string(name.str()), {}, {}};
    std::vector<std::pair<toml::source_position, std::string>> declared;
    for (const auto& [sym, value] : *node.as_table()) {
      if (!value.is_integer() || value.as_integer()->get() <= 0) {
        c.fail(&value, field + "." + std::string(sym.str()), "must be a positive integer");
        continue;
      }
      preset.symbols[std::string(sym.str())] = static_cast<double>(value.as_integer()->get());
      declared.emplace_back(value.source().begin, std::string(sym.str()));
    }
    // toml++ iterates keys sorted; the order of declaration reads better (B, S, D, not B, D, S).
    std::sort(declared.begin(), declared.end(), [](const auto& a, const auto& b) {
      return a.first.line != b.first.line ? a.first.line < b.first.line
                                          : a.first.column < b.first.column;
    });
    for (auto& [pos, sym] : declared) preset.order.push_back(std::move(sym));
    spec.sizes.push_back(std::move(preset));
  }
}

void parse_params(Checker& c, const toml::table& root, TaskSpec& spec) {
  const toml::table* params = table_at(c, root, "params");
  if (!params) return;
  for (const auto& [name, node] : *params) {
    std::string field = fmt::format("params.{}", name.str());
    Param p{std::string(name.str()), std::int64_t{0}};
    if (node.is_integer())
      p.value = node.as_integer()->get();
    else if (node.is_floating_point())
      p.value = node.as_floating_point()->get();
    else if (node.is_boolean())
      p.value = node.as_boolean()->get();
    else {
      c.fail(&node, field, "must be an integer, a float or a boolean");
      continue;
    }
    spec.params.push_back(std::move(p));
  }
}

std::optional<Dist> parse_dist(std::string_view name) {
  if (name == "normal") return Dist::normal;
  if (name == "uniform") return Dist::uniform;
  if (name == "randint") return Dist::randint;
  if (name == "constant") return Dist::constant;
  if (name == "arange") return Dist::arange;
  if (name == "custom") return Dist::custom;
  return std::nullopt;
}

// init = { dist = "normal", mean = 0.0, std = 1.0 } and friends.
void parse_init(Checker& c, const toml::node* node, const std::string& field, TensorSpec& t) {
  if (!node) {
    c.fail(nullptr, field, "missing (e.g. init = { dist = \"normal\", mean = 0.0, std = 1.0 })");
    return;
  }
  if (!node->is_table()) {
    c.fail(node, field, "must be a table such as { dist = \"normal\", mean = 0.0, std = 1.0 }");
    return;
  }
  const toml::table& init = *node->as_table();
  std::string dist_name = c.require_string(init, "dist", field + ".dist");
  if (c.failed()) return;
  auto dist = parse_dist(dist_name);
  if (!dist) {
    c.fail(init.get("dist"), field + ".dist",
           fmt::format("unknown distribution '{}' (expected normal, uniform, randint, constant, "
                       "arange or custom)",
                       dist_name));
    return;
  }
  t.init.dist = *dist;
  struct Keys {
    std::string_view a, b;
    double da, db;
  };
  Keys keys{};
  switch (*dist) {
    case Dist::normal:
      keys = {"mean", "std", 0.0, 1.0};
      break;
    case Dist::uniform:
      keys = {"low", "high", 0.0, 1.0};
      break;
    case Dist::randint:
      keys = {"low", "high", 0.0, 0.0};
      break;
    case Dist::constant:
      keys = {"value", "", 0.0, 0.0};
      break;
    case Dist::arange:
      keys = {"start", "step", 0.0, 1.0};
      break;
    case Dist::custom:
      keys = {"", "", 0.0, 0.0};
      break;
  }
  std::vector<std::string_view> allowed{"dist"};
  if (!keys.a.empty()) allowed.push_back(keys.a);
  if (!keys.b.empty()) allowed.push_back(keys.b);
  for (const auto& [key, value] : init) {
    bool known = false;
    for (auto a : allowed) known = known || key.str() == a;
    if (!known)
      c.fail(&value, field + "." + std::string(key.str()),
             fmt::format("not a parameter of the {} distribution", dist_name));
  }
  t.init.a = keys.da;
  t.init.b = keys.db;
  if (!keys.a.empty()) {
    if (const toml::node* n = init.get(keys.a)) {
      if (n->is_string())
        t.init.a_expr = n->as_string()->get();
      else
        t.init.a = c.number(n, field + "." + std::string(keys.a));
    } else if (*dist == Dist::randint || *dist == Dist::constant)
      c.fail(node, field + "." + std::string(keys.a), "missing");
  }
  if (!keys.b.empty()) {
    if (const toml::node* n = init.get(keys.b)) {
      if (n->is_string())
        t.init.b_expr = n->as_string()->get();
      else
        t.init.b = c.number(n, field + "." + std::string(keys.b));
    } else if (*dist == Dist::randint)
      c.fail(node, field + "." + std::string(keys.b), "missing");
  }
  if (c.failed() || !t.init.a_expr.empty() || !t.init.b_expr.empty())
    return;  // expressions are checked per size
  if (*dist == Dist::normal && !(t.init.b > 0)) c.fail(node, field + ".std", "must be positive");
  if ((*dist == Dist::uniform || *dist == Dist::randint) && !(t.init.b > t.init.a))
    c.fail(node, field + ".high", "must be greater than low");
  if (!dtype_is_float(t.dtype) && (*dist == Dist::normal || *dist == Dist::uniform))
    c.fail(node, field + ".dist",
           fmt::format("{} is a float distribution but the tensor is {}", dist_name,
                       dtype_name(t.dtype)));
  if (*dist == Dist::randint &&
      (t.init.a != std::floor(t.init.a) || t.init.b != std::floor(t.init.b)))
    c.fail(node, field, "randint bounds must be integers");
}

void parse_tensors(Checker& c, const toml::table& root, std::string_view key, bool is_input,
                   std::vector<TensorSpec>& out) {
  const toml::node* node = root.get(key);
  if (!node) {
    c.fail(&root, std::string(key),
           is_input ? "at least one [[inputs]] entry is required"
                    : "at least one [[outputs]] entry is required");
    return;
  }
  if (!node->is_array_of_tables()) {
    c.fail(node, std::string(key), fmt::format("must be an array of tables ([[{}]])", key));
    return;
  }
  std::size_t index = 0;
  for (const auto& item : *node->as_array()) {
    std::string field = fmt::format("{}[{}]", key, index++);
    const toml::table& t = *item.as_table();
    if (is_input)
      c.only_keys(t, field, {"name", "dtype", "shape", "init", "mutate"});
    else
      c.only_keys(t, field, {"name", "dtype", "shape"});
    TensorSpec spec;
    spec.name = c.require_string(t, "name", field + ".name");
    if (c.failed()) return;
    field = fmt::format("{} ('{}')", field, spec.name);
    std::string dtype = c.require_string(t, "dtype", field + ".dtype");
    if (c.failed()) return;
    auto parsed = parse_dtype(dtype);
    if (!parsed) {
      c.fail(t.get("dtype"), field + ".dtype",
             fmt::format("unknown dtype '{}' (expected one of f32, f64, i32, i64)", dtype));
      return;
    }
    spec.dtype = *parsed;
    const toml::node* shape = t.get("shape");
    if (!shape || !shape->is_array()) {
      c.fail(shape ? shape : &t, field + ".shape",
             "must be an array of size symbols or expressions, e.g. [\"B\", \"S\", \"D\"]");
      return;
    }
    for (const auto& dim : *shape->as_array()) {
      if (dim.is_string())
        spec.shape.push_back(dim.as_string()->get());
      else if (dim.is_integer() && dim.as_integer()->get() > 0)
        spec.shape.push_back(std::to_string(dim.as_integer()->get()));
      else
        c.fail(&dim, field + ".shape",
               "each dimension must be a symbol, an expression or a positive integer");
    }
    if (is_input) {
      parse_init(c, t.get("init"), field + ".init", spec);
      spec.mutate = dtype_is_float(spec.dtype) && spec.init.dist != Dist::custom &&
                    spec.init.dist != Dist::constant;
      if (const toml::node* m = t.get("mutate")) {
        if (!m->is_boolean())
          c.fail(m, field + ".mutate", "must be true or false");
        else if (m->as_boolean()->get() && !dtype_is_float(spec.dtype))
          c.fail(m, field + ".mutate", "only float inputs can be mutated between timed pairs");
        else
          spec.mutate = m->as_boolean()->get();
      }
    }
    out.push_back(std::move(spec));
  }
}

void parse_check_and_cost(Checker& c, const toml::table& root, TaskSpec& spec) {
  if (const toml::table* check = table_at(c, root, "check")) {
    if (const toml::node* n = check->get("rtol")) spec.rtol = c.tolerance(n, "check.rtol");
    if (const toml::node* n = check->get("atol")) spec.atol = c.tolerance(n, "check.atol");
    // [check.<size>] tables override the tolerance for one size.
    for (const auto& [key, node] : *check) {
      std::string k(key.str());
      if (k == "rtol" || k == "atol") continue;
      std::string field = "check." + k;
      if (!node.is_table()) {
        c.fail(&node, field, "unknown key (expected rtol, atol, or a [check.<size>] table)");
        continue;
      }
      const toml::table& t = *node.as_table();
      c.only_keys(t, field, {"rtol", "atol"});
      double rtol = spec.rtol, atol = spec.atol;
      if (const toml::node* n = t.get("rtol")) rtol = c.tolerance(n, field + ".rtol");
      if (const toml::node* n = t.get("atol")) atol = c.tolerance(n, field + ".atol");
      spec.size_tolerance[k] = {rtol, atol};
    }
  } else {
    c.fail(&root, "check", "missing [check] with rtol and atol: every task states its tolerance");
  }
  if (const toml::table* cost = table_at(c, root, "cost")) {
    c.only_keys(*cost, "cost", {"flops", "bytes"});
    spec.cost_flops = c.optional_string(*cost, "flops", "cost.flops");
    spec.cost_bytes = c.optional_string(*cost, "bytes", "cost.bytes");
  }
}

// [guard_probe.<size>] symbol = integer: a smaller shape for the suite test's guard probe. Each
// symbol must be one of the size's, and only shrink it.
void parse_guard_probe(Checker& c, const toml::table& root, TaskSpec& spec) {
  const toml::table* probes = table_at(c, root, "guard_probe");
  if (!probes) return;
  for (const auto& [size, node] : *probes) {
    std::string field = fmt::format("guard_probe.{}", size.str());
    const SizePreset* preset = spec.find_size(size.str());
    if (!preset) {
      c.fail(&node, field, fmt::format("'{}' is not one of the [sizes.*] presets", size.str()));
      continue;
    }
    if (!node.is_table()) {
      c.fail(&node, field, "must be a table of symbol = integer");
      continue;
    }
    Symbols& shrunk = spec.guard_probe[std::string(size.str())];
    for (const auto& [sym, value] : *node.as_table()) {
      std::string at = field + "." + std::string(sym.str());
      auto full = preset->symbols.find(sym.str());
      if (full == preset->symbols.end())
        c.fail(&value, at, fmt::format("not a symbol of [sizes.{}]", size.str()));
      else if (!value.is_integer() || value.as_integer()->get() <= 0)
        c.fail(&value, at, "must be a positive integer");
      else if (static_cast<double>(value.as_integer()->get()) > full->second)
        c.fail(&value, at, fmt::format("must not exceed the size's own value ({})", full->second));
      else
        shrunk[std::string(sym.str())] = static_cast<double>(value.as_integer()->get());
    }
  }
}

// Names must be unique across inputs, outputs, params and size symbols (they share the kernel's
// scope), valid C identifiers, and not shadow the kernel's own name.
void check_names(Checker& c, const TaskSpec& spec) {
  std::set<std::string> seen;
  auto claim = [&](const std::string& name, const std::string& what) {
    bool ident =
        !name.empty() && (std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_');
    for (char ch : name)
      ident = ident && (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_');
    if (!ident)
      c.fail(nullptr, what, fmt::format("'{}' is not a valid C identifier", name));
    else if (name == "kernel" || name == "generate" || name == "task")
      c.fail(nullptr, what, fmt::format("'{}' is reserved", name));
    else if (!seen.insert(name).second)
      c.fail(nullptr, what, fmt::format("duplicate name '{}'", name));
  };
  for (const auto& t : spec.inputs) claim(t.name, "inputs");
  for (const auto& t : spec.outputs) claim(t.name, "outputs");
  for (const auto& p : spec.params) claim(p.name, "params");
  std::set<std::string> symbols;
  for (const auto& s : spec.sizes)
    for (const auto& [sym, v] : s.symbols) symbols.insert(sym);
  for (const auto& sym : symbols) claim(sym, "sizes");
}

// The id names files under .kforge/ (secret seeds, caches, sessions): it must be a plain name,
// and the folder's, so that `kforge eval ID` and the task's own id agree.
void check_id(Checker& c, const toml::node* node, const std::string& id,
              const std::filesystem::path& dir) {
  if (!is_safe_task_id(id)) {
    c.fail(node, "id",
           fmt::format("'{}' is not a valid task id (letters, digits, '_', '.' and '-', not "
                       "starting with '.' or '-', no '..')",
                       id));
    return;
  }
  std::string folder = (dir.filename().empty() ? dir.parent_path() : dir).filename().string();
  if (id != folder)
    c.fail(node, "id", fmt::format("'{}' must match the task's folder name '{}'", id, folder));
}

}  // namespace

Result<TaskSpec> load_task(const std::filesystem::path& dir) {
  std::filesystem::path file = dir / "task.toml";
  if (!std::filesystem::exists(file))
    return Error{fmt::format("{}: no task.toml (is this a task folder?)", dir.string())};
  auto text = read_text(file);
  if (!text) return text.error();
  auto parsed = parse_toml(*text, file);
  if (!parsed) return parsed.error();
  const toml::table& root = *parsed;

  Checker c(file);
  TaskSpec spec;
  spec.dir = std::filesystem::absolute(dir).lexically_normal();
  c.only_keys(root, "",
              {"id", "title", "origin", "notes", "tags", "default_size", "sizes", "params",
               "inputs", "outputs", "check", "cost", "guard_probe"});
  spec.id = c.require_string(root, "id", "id");
  if (!c.failed()) check_id(c, root.get("id"), spec.id, spec.dir);
  spec.title = c.optional_string(root, "title", "title");
  spec.origin = c.optional_string(root, "origin", "origin");
  spec.notes = c.optional_string(root, "notes", "notes");
  if (const toml::node* tags = root.get("tags")) {
    if (!tags->is_array())
      c.fail(tags, "tags", "must be an array of strings");
    else
      for (const auto& t : *tags->as_array()) {
        if (t.is_string())
          spec.tags.push_back(t.as_string()->get());
        else
          c.fail(&t, "tags", "must be an array of strings");
      }
  }
  parse_sizes(c, root, spec);
  parse_params(c, root, spec);
  parse_tensors(c, root, "inputs", true, spec.inputs);
  parse_tensors(c, root, "outputs", false, spec.outputs);
  parse_check_and_cost(c, root, spec);
  if (c.failed()) return c.error();
  parse_guard_probe(c, root, spec);
  if (c.failed()) return c.error();

  spec.default_size = c.optional_string(root, "default_size", "default_size");
  if (spec.default_size.empty())
    spec.default_size = spec.find_size("cpu") ? "cpu" : spec.sizes.front().name;
  if (!spec.find_size(spec.default_size))
    c.fail(root.get("default_size"), "default_size",
           fmt::format("'{}' is not one of the [sizes.*] presets", spec.default_size));
  check_names(c, spec);
  for (const auto& [size, tol] : spec.size_tolerance)
    if (!spec.find_size(size))
      c.fail(root.get("check"), "check." + size,
             fmt::format("'{}' is not one of the [sizes.*] presets", size));
  if (c.failed()) return c.error();

  // Every shape and cost formula must resolve for every size: an error here names the size.
  // Whether a size fits this machine's memory is asked when it is used, not here.
  for (const auto& size : spec.sizes) {
    auto resolved = resolve_task_shapes(spec, size.name);
    if (!resolved) return Error{fmt::format("{}: {}", file.string(), resolved.error().message)};
  }
  for (const auto& [size, shrunk] : spec.guard_probe) {
    auto probe = with_guard_probe(spec, size);
    auto resolved = resolve_task_shapes(*probe, guard_probe_size_name(size));
    if (!resolved)
      return Error{
          fmt::format("{}: guard_probe.{}: {}", file.string(), size, resolved.error().message)};
  }

  if (!std::filesystem::exists(spec.reference_path()))
    return Error{fmt::format(
        "{}: reference.cpp is missing: every task needs its correctness oracle", dir.string())};
  if (spec.has_generator() && !std::filesystem::exists(spec.generate_path()))
    return Error{
        fmt::format("{}: an input has init = {{ dist = \"custom\" }} but generate.cpp is missing",
                    dir.string())};
  return spec;
}

}  // namespace kforge::core
