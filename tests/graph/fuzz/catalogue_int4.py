"""int4 variants for the differential fuzzer: Dense and EinsumDense layers built for the
input shape and quantized to int4 (``layer.quantize("int4", config=...)``, per channel --
with or without an input quantizer -- or in groups of a random block size) in their
constructor expression, so any model kind the fuzzer makes can hold them.
tests/graph/test_fuzz_int4.py runs the fuzzer with these rules added to the pool.

Same contract as ``catalogue.py``: ``(r, shape) -> Choice | None``.
"""
from __future__ import annotations

from .catalogue import Choice, _act, _units


# The shape trials evaluate a rule's code with only ``layers`` and ``ops`` in scope.
Q = "__import__('lamina').quantizers"


def _config(r) -> str:
    kind = r.choice(["per_channel", "inputs", "groups"])
    if kind == "per_channel":
        return f"{Q}.Int4QuantizationConfig(block_size=None)"
    if kind == "inputs":
        return (f"{Q}.Int4QuantizationConfig(block_size=-1, "
                f"activation_quantizer={Q}.AbsMaxQuantizer())")
    return f"{Q}.Int4QuantizationConfig(block_size={r.randint(1, 4)})"


def _quantized(code: str, shape, r) -> str:
    build = (None, *shape)
    return (f"(lambda q: (q.build({build!r}), q.quantize('int4', config={_config(r)}), "
            f"q)[-1])({code})")


def int4_dense(r, s):
    inner = f"layers.Dense({_units(r)}, activation={_act(r)!r}, use_bias={r.random() < 0.8})"
    return Choice(_quantized(inner, s, r))


def int4_einsum_dense(r, s):
    if len(s) != 2:
        return None
    steps = s[0]
    if r.random() < 0.5:
        inner = (f"layers.EinsumDense('abc,cd->abd', output_shape=({steps}, {_units(r)}), "
                 f"bias_axes='d', activation={_act(r)!r})")
        return Choice(_quantized(inner, s, r))
    inner = (f"layers.EinsumDense('abc,cde->abde', output_shape=({steps}, 2, {_units(r)}), "
             f"bias_axes='e')")
    return Choice(f"layers.Reshape(({steps}, -1))",
                  call="{layer}(" + _quantized(inner, s, r) + "({x}))")


RULES = [int4_dense, int4_einsum_dense]
