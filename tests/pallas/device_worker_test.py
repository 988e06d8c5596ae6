"""kforge_pallas_device.py's timed calls, without a GPU (host memory, JAX's CPU backend): the
inputs are made fresh by kforge's multiply (bit for bit the host's dst = src * table[i % 4096]),
and nothing crosses between host and device inside a timed call: no jax.device_put or
jax.device_get, no torch .cpu() or .numpy(). A worker that fed the kernel host arrays, or copied
its results to NumPy, inside the call would fail here. Run by ctest in the venv scripts/setup makes.
"""
import os
import struct
import sys
import tempfile
import types
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "src", "kforge", "runner", "python"))
os.environ["JAX_PLATFORMS"] = "cpu"

import numpy as np  # noqa: E402

import kforge_cuda_worker as cw  # noqa: E402
import kforge_pallas_device as pd  # noqa: E402

SHAPE = (4, 1024)
TASK = f'INPUTS = [("x", "f32", {SHAPE})]\nOUTPUTS = [("y", "f32", {SHAPE})]\n'
PORT = "import jax.numpy as jnp\n\ndef double(x):\n    return x * 2.0\n"


class DeviceWorkerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory()
        d = cls.dir.name
        with open(os.path.join(d, "kforge_task.py"), "w") as f:
            f.write(TASK)
        with open(os.path.join(d, "port.py"), "w") as f:
            f.write(PORT)
        args = types.SimpleNamespace(module=os.path.join(d, "port.py"), callable="double",
                                     framework="jax", task_dir=d, dtype="f32",
                                     memory_bytes=1 << 30, host_memory=True)
        cls.worker = pd.JaxDeviceWorker(args)

    def test_inputs_are_made_fresh_by_kforges_multiply_and_no_copy_is_timed(self):
        import jax
        import torch
        rng = np.random.default_rng(2)
        tables = [(1 + rng.uniform(-0.05, 0.05, cw.TABLE_ELEMENTS)).astype(np.float32)
                  for _ in range(3)]
        w = self.worker
        nbytes = int(np.prod(SHAPE)) * 4
        self.pristine = np.random.default_rng(1).standard_normal(SHAPE).astype(np.float32)
        x, y, pristine = w.allocate(nbytes), w.allocate(nbytes), w.allocate(nbytes)
        snaps = [w.allocate(nbytes) for _ in range(3)]
        w.upload(pristine, self.pristine.tobytes())
        counts = {"device_put": 0, "device_get": 0, "cpu": 0, "numpy": 0}

        def counting(name, f):
            def g(*a, **k):
                counts[name] += 1
                return f(*a, **k)
            return g
        saved = (jax.device_put, jax.device_get, torch.Tensor.cpu, torch.Tensor.numpy)
        calls_seen = []
        real_call = w.call_with

        def timed_call(ids):  # the timed region: what time_calls runs between its clock reads
            jax.device_put = counting("device_put", saved[0])
            jax.device_get = counting("device_get", saved[1])
            torch.Tensor.cpu = counting("cpu", saved[2])
            torch.Tensor.numpy = counting("numpy", saved[3])
            try:
                real_call(ids)
            finally:
                jax.device_put, jax.device_get, torch.Tensor.cpu, torch.Tensor.numpy = saved
            calls_seen.append(ids)
        w.call_with = timed_call
        try:
            payload = cw.BATCH_HEADER.pack(3, 1, 1, 0, 0, 0)
            payload += cw.BATCH_INPUT.pack(x, pristine, cw.FRESH_F32, 0, nbytes)
            payload += struct.pack("<I", y) + struct.pack("<3I", *snaps)
            payload += b"".join(t.tobytes() for t in tables)
            times = w.time_calls(payload)
        finally:
            w.call_with = real_call
        self.assertEqual(len(calls_seen), 3)
        self.assertEqual(len(times), 3 * cw.CALL_TIMES.size)
        self.assertEqual(counts, {"device_put": 0, "device_get": 0, "cpu": 0, "numpy": 0})
        # The last call's input: the host's perturbation, bit for bit; each output twice it.
        reps = np.tile(tables[-1], int(np.prod(SHAPE)) // cw.TABLE_ELEMENTS).reshape(SHAPE)
        want = self.pristine * reps
        got = np.frombuffer(w.bytes_of(w.buffers[x], 0, nbytes), dtype=np.float32).reshape(SHAPE)
        self.assertTrue(np.array_equal(got.view(np.uint32), want.view(np.uint32)))
        for k, s in enumerate(snaps):
            t = np.tile(tables[k], int(np.prod(SHAPE)) // cw.TABLE_ELEMENTS).reshape(SHAPE)
            out = np.frombuffer(w.bytes_of(w.buffers[s], 0, nbytes), dtype=np.float32)
            self.assertTrue(np.array_equal(out.reshape(SHAPE), (self.pristine * t) * 2.0))


if __name__ == "__main__":
    unittest.main()
