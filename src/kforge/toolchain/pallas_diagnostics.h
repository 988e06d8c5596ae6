#pragma once
// A Python traceback from a Pallas kernel (JAX tracing, the interpret mode, the Mosaic TPU
// lowering, a syntax error at import) → structured diagnostics for the debugger agent and for
// humans, in the same shape as a compiler's: the error at the deepest frame in the kernel's own
// file (file, line, column for a SyntaxError, the source line), its exception type and message,
// and notes for what the message names: the offending BlockSpec (operand, block shape, array
// shape, index map), the kernel function or index map it points at, and what a BlockSpec or grid
// mistake usually means.
//
// JAX prints more than one traceback for one error: a lowering error comes first as
// "JaxStackTraceBeforeTransformation" (the user's stack when the op was traced), then "The above
// exception was the direct cause of the following exception:" and the traceback that propagated.
// The last exception names the error; the kernel frame is taken from the last traceback that has
// one (the propagated one, else the stack before transformation), else from a "file.py:N" the
// message itself names.

#include <map>
#include <string>
#include <vector>

#include "kforge/toolchain/diagnostics.h"

namespace kforge::toolchain {

// `sources` maps a kernel file's name ("kernel.py") to its text: a frame whose path ends in that
// name is the kernel's, and its line is filled from the text. With no sources, any frame outside
// the Python installation (site-packages, lib/pythonX.Y, <frozen ...>) counts as the kernel's.
// Empty when `output` holds no Python exception.
std::vector<Diagnostic> parse_python_diagnostics(const std::string& output,
                                                 const std::map<std::string, std::string>& sources);

}  // namespace kforge::toolchain
