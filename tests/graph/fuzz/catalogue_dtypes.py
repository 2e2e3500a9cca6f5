"""Layers computing in another dtype than the model's, for the differential fuzzer.

A layer whose dtype policy differs from floatx casts what it reads (its inputs; under a
mixed policy its float32 weights too), and its gradients are cast back: float32 LoRA factors
in a float64 model (fuzzer seed 15) took the gradient of a cast of a transposed gradient,
which graph mode laid out in C order where eager mode had Fortran order, and the matmul
after it rounded differently (tests/graph/test_layouts_eager_equals_graph.py). The rules
draw the dtype at random, so a float64 model gets float32 layers and a float32 model
float64 ones (the float64 models check to 1e-10, where a float32 layer's 1-ulp difference
shows). ReversibleEmbedding's reverse product casts its transposed embeddings (to its
``reverse_dtype``), and ``Lambda`` layers multiply by casts of transposed matrices.

Same contract as ``catalogue.py``: ``(r, shape) -> Choice | None``.
"""
from __future__ import annotations

from .catalogue import Choice, _act, _units

DTYPES = ["float32", "float64", "mixed_float16", "mixed_bfloat16", "float16"]


def _lora(r) -> str:
    if r.random() < 0.5:
        return ""
    return f", lora_rank={r.randint(1, 3)}, lora_alpha={r.choice([None, 0.5, 4])}"


def mixed_dtype_layer(r, s):
    """Dense, EinsumDense, Conv1D/2D or ReversibleEmbedding's reverse projection (by the
    input's rank), with LoRA half the time, in a dtype drawn from ``DTYPES``."""
    dtype, units = r.choice(DTYPES), _units(r)
    roll = r.random()
    if roll < 0.35:
        # The reverse product casts the transposed embeddings, to reverse_dtype or to the
        # 16-bit compute dtype of a mixed policy (float32 LoRA factors: seed 15's case).
        reverse = r.choice(["", ", reverse_dtype='float32'", ", reverse_dtype='float64'"])
        dtype = dtype if reverse else r.choice(["mixed_float16", "mixed_bfloat16"])
        return Choice(f"layers.ReversibleEmbedding({units + 1}, {s[-1]}, "
                      f"lora_rank={r.choice([1, 1, 2])}, lora_alpha={r.choice([None, 0.5, 4])}"
                      f"{reverse}, dtype={dtype!r})", call="{layer}({x}, reverse=True)")
    if roll < 0.5 and len(s) == 2:
        return Choice(f"layers.EinsumDense('abc,cd->abd', output_shape=({s[0]}, {units}), "
                      f"bias_axes={r.choice(['d', None])!r}{_lora(r)}, dtype={dtype!r})")
    if roll < 0.65 and len(s) in (2, 3):
        return Choice(f"layers.Conv{len(s) - 1}D({units}, {r.randint(1, 2)}, "
                      f"padding='same'{_lora(r)}, dtype={dtype!r})")
    return Choice(f"layers.Dense({units}, activation={_act(r)!r}, "
                  f"use_bias={r.random() < 0.8}{_lora(r)}, dtype={dtype!r})")


# A matmul in a lower precision reading a cast of a transposed matrix (a cast of a view
# comes out of numpy in the view's layout; float32 in a float64 model, float16 in a float32
# one, where a 1-ulp difference exceeds the check's tolerance): t plus t times its Gram matrix
# over the second-to-last axis, cast back so that the next layer sees the model's dtype.
_LOW = "'float32' if t.dtype == 'float64' else 'float16'"
CAST_LAMBDAS = [
    f"t + ops.cast(ops.matmul(ops.cast(t, {_LOW}), ops.cast(ops.swapaxes(ops.matmul("
    f"ops.swapaxes(t, -1, -2), t) * 0.1, -1, -2), {_LOW})), t.dtype)",
    f"t * ops.cast(ops.matmul(ops.cast(ops.tanh(t), {_LOW}), ops.cast(ops.swapaxes(ops.exp("
    f"ops.matmul(ops.swapaxes(t, -1, -2), t) * -0.1), -1, -2), {_LOW})), t.dtype)",
]


def cast_lambda(r, s):
    return Choice(f"layers.Lambda(lambda t: {r.choice(CAST_LAMBDAS)})")


RULES = [mixed_dtype_layer, mixed_dtype_layer, cast_lambda]
