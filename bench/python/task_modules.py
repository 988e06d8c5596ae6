"""Loading a task's Python files: its generated kforge_task module and its ports or experts.

Shared by run_ports.py (the ports on kforge's inputs) and tests/pallas/check_experts.py.
"""
import importlib.util
import sys

import numpy as np

# kforge's dtype names as NumPy's.
NUMPY_DTYPES = {"f32": np.float32, "f64": np.float64, "i32": np.int32, "i64": np.int64}


def load_module(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def bind_task(work_dir):
    """Makes `import kforge_task` find this task's module (and forget the previous task's)."""
    sys.modules.pop("kforge_task", None)
    sys.path.insert(0, str(work_dir))
    try:
        import kforge_task
    finally:
        sys.path.pop(0)
    return kforge_task
