#pragma once
// A small Pallas RMSNorm for 12p_rmsnorm (any size whose B*S is a multiple of 8), written here so
// that the pallas target is tested without an expert file; and kernels built around it.
#include <string>

namespace kforge::eval {

// The computation every adversarial kernel below also does, so that only its attack can fail it.
inline const char* kRmsNormBody = R"(
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
import kforge_task as T

ROWS = 8


def _rmsnorm(x_ref, s_ref, o_ref):
    x = x_ref[...].astype(jnp.float32)
    ms = jnp.mean(x * x, axis=-1, keepdims=True)
    y = x * jax.lax.rsqrt(ms + T.eps) * s_ref[...].astype(jnp.float32)
    o_ref[...] = y.astype(o_ref.dtype)


def rmsnorm(x, scale):
    n = T.B * T.S
    y = pl.pallas_call(
        _rmsnorm,
        out_shape=jax.ShapeDtypeStruct((n, T.D), x.dtype),
        grid=(n // ROWS,),
        in_specs=[pl.BlockSpec((ROWS, T.D), lambda i: (i, 0)),
                  pl.BlockSpec((1, T.D), lambda i: (0, 0))],
        out_specs=pl.BlockSpec((ROWS, T.D), lambda i: (i, 0)),
    )(x.reshape(n, T.D), scale.reshape(1, T.D))
    return y.reshape(T.B, T.S, T.D)
)";

inline std::string kernel_with(const std::string& prelude, const std::string& body) {
  return prelude + kRmsNormBody + "\n\ndef kernel(x, scale):\n" + body +
         "\n    return rmsnorm(x, scale)\n";
}

}  // namespace kforge::eval
