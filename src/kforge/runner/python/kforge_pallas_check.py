"""kforge_pallas_check.py: the pallas target's "compiler" (toolchain/pallas_compiler.h).

Run by the venv's interpreter in the compile sandbox, in a scratch folder holding the kernel file
and kforge_task.py: byte-compiles the file and checks it statically, without importing it (no
line of the kernel runs here). Findings are printed as GCC-style diagnostics,
"FILE:LINE:COL: error: MESSAGE", which kforge parses like any compiler's; exit status 1 when
there is one, 0 when the file may be run by the worker.

The checks are a first fence that gives the model a precise message early; the worker's walls
(Landlock, seccomp, the traced-program check) hold whatever gets past them:
  - a top-level `kernel` function;
  - imports from an allowlist (JAX, NumPy, kforge_task and a few pure standard modules);
  - no host callbacks (pure_callback, io_callback, jax.debug.callback, FFI calls);
  - no file or process access through builtins (open, exec, eval, __import__) or NumPy's file
    functions, no dunder attributes that reach interpreter internals, no module attributes that
    lead to sys.modules (typing.sys);
  - no literal path to the task's trusted files (workload.py, the reference) or kforge's state:
    a candidate's rule only (--trusted, for the task's own expert, lifts it: the expert is one of
    those files, and its docstring may name the others).
"""
import ast
import sys

ALLOWED_MODULES = {"jax", "jaxlib", "numpy", "ml_dtypes", "kforge_task", "math", "functools",
                   "itertools", "operator", "typing", "dataclasses", "collections", "enum"}
REFUSED_NAMES = {"open", "exec", "eval", "compile", "__import__", "globals", "locals", "vars",
                 "breakpoint", "input", "__builtins__", "__loader__", "__spec__"}
CALLBACKS = {"pure_callback", "io_callback", "callback", "host_callback", "ffi_call", "ffi",
             "call_tf", "debug_callback", "experimental_io_callback"}
NUMPY_FILE_FUNCTIONS = {"load", "save", "savez", "savez_compressed", "fromfile", "tofile",
                        "loadtxt", "savetxt", "genfromtxt", "memmap", "fromregex", "DataSource"}
ALLOWED_DUNDERS = {"__name__", "__doc__", "__init__", "__call__", "__len__", "__getitem__",
                   "__iter__", "__repr__", "__str__", "__eq__", "__hash__", "__post_init__"}
# Modules other modules carry as attributes (typing.sys, dataclasses.sys, collections._sys):
# the way from an allowed import to sys.modules and from there to os or socket.
REFUSED_ATTRIBUTES = {"sys", "_sys", "modules", "os", "builtins", "subprocess", "socket"}
TRUSTED_PATHS = ("workload.py", "reference.cpp", "baseline.py", "baseline.cpp", "expert",
                 "generate.cpp", ".kforge", "kforge.db", "jaxbench", "secret")


class Checker(ast.NodeVisitor):
    def __init__(self, file_name, trusted=False):
        self.file_name = file_name
        self.trusted = trusted
        self.findings = []
        self.numpy_aliases = set()

    def error(self, node, message):
        self.findings.append((node.lineno, node.col_offset + 1, message))

    def check_module(self, node, name):
        top = name.split(".")[0]
        if top not in ALLOWED_MODULES:
            self.error(node, f"import of '{name}' is not allowed in a Pallas kernel (allowed: "
                             f"{', '.join(sorted(ALLOWED_MODULES))})")

    def visit_Import(self, node):
        for alias in node.names:
            self.check_module(node, alias.name)
            if alias.name == "numpy":
                self.numpy_aliases.add(alias.asname or "numpy")
        self.generic_visit(node)

    def visit_ImportFrom(self, node):
        if node.level:
            self.error(node, "relative imports are not allowed in a Pallas kernel")
        else:
            self.check_module(node, node.module or "")
        for alias in node.names:
            if alias.name in CALLBACKS:
                self.error(node, f"'{alias.name}' calls back to the host: a Pallas kernel may "
                                 "not leave the traced program")
            if node.module == "numpy" and alias.name in NUMPY_FILE_FUNCTIONS:
                self.error(node, f"numpy.{alias.name} reads or writes files: a kernel has no "
                                 "files")
        self.generic_visit(node)

    def visit_Name(self, node):
        if node.id in REFUSED_NAMES:
            self.error(node, f"'{node.id}' is not allowed in a Pallas kernel (no files, no "
                             "dynamic code)")
        self.generic_visit(node)

    def visit_Attribute(self, node):
        if node.attr in CALLBACKS:
            self.error(node, f"'{node.attr}' calls back to the host: a Pallas kernel may not "
                             "leave the traced program")
        elif node.attr in REFUSED_ATTRIBUTES:
            self.error(node, f"'.{node.attr}' reaches modules a Pallas kernel may not use")
        elif node.attr.startswith("__") and node.attr not in ALLOWED_DUNDERS:
            self.error(node, f"'{node.attr}' reaches the interpreter's internals: not allowed "
                             "in a Pallas kernel")
        elif (isinstance(node.value, ast.Name) and node.value.id in self.numpy_aliases
              and node.attr in NUMPY_FILE_FUNCTIONS):
            self.error(node, f"{node.value.id}.{node.attr} reads or writes files: a kernel has "
                             "no files")
        self.generic_visit(node)

    def visit_Constant(self, node):
        if isinstance(node.value, str) and not self.trusted:
            for p in TRUSTED_PATHS:
                if p in node.value and ("/" in node.value or node.value.endswith(p)):
                    self.error(node, f"the string {node.value[:60]!r} names kforge's or the "
                                     "task's own files: a kernel may not read them")
                    break
        self.generic_visit(node)


def defines_kernel(tree):
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == "kernel":
            return True
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "kernel" for t in node.targets):
            return True
    return False


def check(path, display, trusted=False):
    with open(path, encoding="utf-8", errors="replace") as f:
        source = f.read()
    try:
        tree = ast.parse(source, filename=display)
        compile(tree, display, "exec")
    except SyntaxError as e:
        return [(e.lineno or 1, e.offset or 1, f"{type(e).__name__}: {e.msg}")]
    checker = Checker(display, trusted)
    checker.visit(tree)
    if not defines_kernel(tree):
        checker.findings.append((1, 1, "the file defines no top-level function 'kernel': the "
                                       "pallas target calls kernel(*inputs) -> output or tuple"))
    return sorted(checker.findings)


def main():
    args = sys.argv[1:]
    trusted = args[:1] == ["--trusted"]
    if trusted:
        args = args[1:]
    if len(args) != 1:
        sys.stderr.write("usage: kforge_pallas_check.py [--trusted] KERNEL.py\n")
        return 2
    path = args[0]
    findings = check(path, path, trusted)
    for line, col, message in findings:
        print(f"{path}:{line}:{col}: error: {message}")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
