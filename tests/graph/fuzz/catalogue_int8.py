"""Quantized variants for the differential fuzzer: Dense and EinsumDense layers built for
the input shape and quantized to int8 (``layer.quantize("int8")``) in their constructor
expression, so any model kind the fuzzer makes (sequential, functional, subclass, custom
steps, GANs) can hold them. tests/graph/test_fuzz_int8.py runs the fuzzer with these rules
added to the pool.

Same contract as ``catalogue.py``: ``(r, shape) -> Choice | None``.
"""
from __future__ import annotations

from .catalogue import Choice, _act, _units


def _quantized(code: str, shape) -> str:
    build = (None, *shape)
    return f"(lambda q: (q.build({build!r}), q.quantize('int8'), q)[-1])({code})"


def quantized_dense(r, s):
    inner = f"layers.Dense({_units(r)}, activation={_act(r)!r}, use_bias={r.random() < 0.8})"
    return Choice(_quantized(inner, s))


def quantized_einsum_dense(r, s):
    if len(s) != 2:
        return None
    steps = s[0]
    if r.random() < 0.5:
        inner = (f"layers.EinsumDense('abc,cd->abd', output_shape=({steps}, {_units(r)}), "
                 f"bias_axes='d', activation={_act(r)!r})")
    else:
        inner = (f"layers.EinsumDense('abc,cde->abde', output_shape=({steps}, 2, "
                 f"{_units(r)}), bias_axes='e')")
        return Choice(f"layers.Reshape(({steps}, -1))", call="{layer}(" + _quantized(
            inner, s) + "({x}))")
    return Choice(_quantized(inner, s))


def quantized_lora(r, s):
    """Dense or EinsumDense with LoRA and int8 / int4 quantization, in either order (a
    random ``b`` so that the low-rank path counts from the first step)."""
    if len(s) == 2 and r.random() < 0.5:
        inner = (f"layers.EinsumDense('abc,cd->abd', output_shape=({s[0]}, {_units(r)}), "
                 f"bias_axes='d', activation={_act(r)!r})")
    elif len(s) == 1:
        inner = f"layers.Dense({_units(r)}, activation={_act(r)!r}, use_bias={r.random() < 0.8})"
    else:
        return None
    mode, rank, alpha = r.choice(["int8", "int4"]), r.randint(1, 3), r.choice([None, 0.5, 4])
    lora = f"q.enable_lora({rank}, lora_alpha={alpha}, b_initializer='random_normal')"
    quantize = f"q.quantize({mode!r})"
    steps = f"{lora}, {quantize}" if r.random() < 0.5 else f"{quantize}, {lora}"
    return Choice(f"(lambda q: (q.build({(None, *s)!r}), {steps}, q)[-1])({inner})")


RULES = [quantized_dense, quantized_einsum_dense, quantized_lora]
