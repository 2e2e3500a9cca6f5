"""Parsing ``EinsumDense`` equations and computing a two-operand einsum with
``transpose``/``reshape``/``matmul`` (Lamina has no ``einsum`` op).

Shape analysis follows Keras 3's ``_analyze_einsum_string`` so that kernel and bias shapes
(and so ``get_weights`` lists) are Keras's.
"""
from __future__ import annotations

import copy
import re
import warnings
import string

from ... import ops
from ...initializers import VarianceScaling

_FORMS = (
    # (pattern on the equation with '...' replaced by '0', ellipsis position)
    (r"([a-zA-Z]+),([a-zA-Z]+)->([a-zA-Z]+)", None),
    (r"0([a-zA-Z]+),([a-zA-Z]+)->0([a-zA-Z]+)", "left"),
    (r"([a-zA-Z]{2,})0,([a-zA-Z]+)->([a-zA-Z]+)0", "right"),
)


def split_equation(layer: str, equation) -> tuple[str, str, str, str | None]:
    """``(input_spec, kernel_spec, output_spec, ellipsis)`` or a ValueError naming ``layer``."""
    if isinstance(equation, str):
        replaced = equation.replace(" ", "").replace("...", "0")
        for pattern, ellipsis in _FORMS:
            match = re.fullmatch(pattern, replaced)
            if match:
                specs = match.groups()
                for spec in specs:
                    if len(set(spec)) != len(spec):
                        raise ValueError(f"{layer}: argument 'equation' repeats an index "
                                         f"within one operand ('{spec}'), which Lamina does "
                                         f"not support; received {equation!r}")
                return (*specs, ellipsis)
    raise ValueError(f"{layer}: argument 'equation' must be an einsum string of the form "
                     f"'ab,bc->ac', '...ab,bc->...ac' or 'ab...,bc->ac...'; "
                     f"received {equation!r}")


_WARNED: set = set()


def _warn_once(key, message: str) -> None:
    if key not in _WARNED:
        _WARNED.add(key)
        warnings.warn(message, stacklevel=4)


def analyze(layer: str, equation, bias_axes, input_shape, partial_output_shape):
    """Kernel shape, bias shape (or None) and full output shape, as Keras computes them."""
    in_spec, w_spec, out_spec, ellipsis = split_equation(layer, equation)
    input_shape = tuple(input_shape)
    elided = len(input_shape) - len(in_spec)
    min_rank = len(in_spec) + (ellipsis == "left")
    if elided < min_rank - len(in_spec) or (ellipsis is None and elided != 0):
        at_least = "at least " if ellipsis else ""
        raise ValueError(f"{layer}: the input must have rank {at_least}{min_rank} to "
                         f"match the equation {equation!r}; received shape {input_shape}")
    # With a leading ellipsis the batch axis is inside the ellipsis, else it is spelled.
    wanted = len(out_spec) - (ellipsis != "left")
    if len(partial_output_shape) > wanted:
        # Keras builds such a layer and never reads the extra sizes: warn, then drop them
        _warn_once(layer, f"{layer}: argument 'output_shape' gives {len(partial_output_shape)} "
                          f"sizes but the output of {equation!r} has {wanted} without the "
                          f"batch axis and ellipsis; the extra sizes "
                          f"{tuple(partial_output_shape[wanted:])} are ignored")
        partial_output_shape = tuple(partial_output_shape[:wanted])
    if len(partial_output_shape) != wanted:
        raise ValueError(f"{layer}: argument 'output_shape' must give {wanted} sizes (the "
                         f"output of {equation!r} without the batch axis and ellipsis); "
                         f"received {partial_output_shape}")
    output_shape = [input_shape[0], *partial_output_shape]
    if ellipsis == "left":
        output_shape[1:1] = input_shape[1:elided]
        in_map = {d: i + elided for i, d in enumerate(in_spec)}
        out_map = {d: i + elided for i, d in enumerate(out_spec)}
    else:
        if ellipsis == "right":
            output_shape += input_shape[len(input_shape) - elided:]
        in_map = {d: i for i, d in enumerate(in_spec)}
        out_map = {d: i for i, d in enumerate(out_spec)}
    for d in in_spec:
        if d in out_map and output_shape[out_map[d]] is not None and \
                input_shape[in_map[d]] is not None and \
                output_shape[out_map[d]] != input_shape[in_map[d]]:
            raise ValueError(f"{layer}: input and output shapes differ at shared index '{d}' "
                             f"of {equation!r}: input size {input_shape[in_map[d]]}, "
                             f"output size {output_shape[out_map[d]]}")
        if d in out_map and output_shape[out_map[d]] is None:
            output_shape[out_map[d]] = input_shape[in_map[d]]
    for d in out_spec:
        if d not in in_spec and d not in w_spec:
            raise ValueError(f"{layer}: output index '{d}' of {equation!r} appears in "
                             f"neither the input nor the kernel")
    kernel_shape = []
    for d in w_spec:
        size = input_shape[in_map[d]] if d in in_map else (
            output_shape[out_map[d]] if d in out_map else None)
        if size is None:
            raise ValueError(f"{layer}: the size of kernel index '{d}' of {equation!r} is "
                             f"unknown; give it in 'output_shape' or the input shape "
                             f"{input_shape}")
        kernel_shape.append(size)
    bias_shape = None
    if bias_axes:
        for d in bias_axes:
            if d not in out_spec:
                raise ValueError(f"{layer}: argument 'bias_axes' names index '{d}', which is "
                                 f"not in the output spec '{out_spec}' of {equation!r}")
        first = min(out_spec.index(d) for d in bias_axes)
        bias_shape = [output_shape[out_map[d]] if d in bias_axes else 1
                      for d in out_spec[first:]]
        if ellipsis == "right":
            bias_shape += [1] * elided
    return tuple(kernel_shape), bias_shape and tuple(bias_shape), tuple(output_shape)


def expand(layer: str, equation, rank: int) -> tuple[str, str, str]:
    """The equation's three specs with the ellipsis spelled out in unused letters."""
    in_spec, w_spec, out_spec, ellipsis = split_equation(layer, equation)
    if ellipsis is None:
        return in_spec, w_spec, out_spec
    used = set(in_spec + w_spec + out_spec)
    extra = "".join([c for c in string.ascii_letters if c not in used][:rank - len(in_spec)])
    if ellipsis == "left":
        return extra + in_spec, w_spec, extra + out_spec
    return in_spec + extra, w_spec, out_spec + extra


def _product(sizes):
    total = 1
    for s in sizes:
        if s is None:
            return None
        total *= s
    return total


def einsum(x, w, in_spec: str, w_spec: str, out_spec: str, matmul=ops.matmul):
    """``numpy.einsum(f"{in_spec},{w_spec}->{out_spec}", x, w)`` by transposes and
    ``matmul`` (``ops.int8_matmul`` for the int8 layer's exact integer product)."""
    # Indices in one operand only and absent from the output are summed away first.
    x_sum = [i for i, d in enumerate(in_spec) if d not in w_spec and d not in out_spec]
    if x_sum:
        x = ops.sum(x, axis=tuple(x_sum))
        in_spec = "".join(d for i, d in enumerate(in_spec) if i not in x_sum)
    w_sum = [i for i, d in enumerate(w_spec) if d not in in_spec and d not in out_spec]
    if w_sum:
        w = ops.sum(w, axis=tuple(w_sum))
        w_spec = "".join(d for i, d in enumerate(w_spec) if i not in w_sum)
    batch = [d for d in in_spec if d in w_spec and d in out_spec]
    contracted = [d for d in in_spec if d in w_spec and d not in out_spec]
    free_x = [d for d in in_spec if d not in w_spec]
    free_w = [d for d in w_spec if d not in in_spec]
    size = {**dict(zip(in_spec, x.shape)), **dict(zip(w_spec, w.shape))}
    x = ops.transpose(x, [in_spec.index(d) for d in batch + free_x + contracted])
    w = ops.transpose(w, [w_spec.index(d) for d in batch + contracted + free_w])
    c = _product(size[d] for d in contracted)
    w = ops.reshape(w, [size[d] for d in batch] + [c, _product(size[d] for d in free_w)])
    if batch:
        # matmul broadcasts leading axes only, so the free input axes become one.
        x = ops.reshape(x, [size[d] for d in batch] +
                        [_product(size[d] for d in free_x), c])
    elif len(contracted) != 1:
        x = ops.reshape(x, [size[d] for d in free_x] + [c])
    y = matmul(x, w)
    y_spec = batch + free_x + free_w
    y = ops.reshape(y, [size[d] for d in y_spec])
    return ops.transpose(y, [y_spec.index(d) for d in out_spec])


def kernel_fan_axes(w_spec: str, out_spec: str) -> tuple[list, list]:
    """The kernel axes that are input units and those that are output units (an index
    that the output has counts as output), Keras's ``input_axes`` / ``output_axes``."""
    input_axes = [i for i, d in enumerate(w_spec) if d not in out_spec]
    output_axes = [i for i, d in enumerate(w_spec) if d in out_spec]
    return input_axes, output_axes


def with_fan_axes(initializer, input_axes, output_axes):
    """A ``VarianceScaling`` kernel initializer that counts fans over the einsum's axes
    (Keras 3.15's EinsumDense): a copy sharing its seed, given the axes it lacks; any
    other initializer as it is."""
    if not isinstance(initializer, VarianceScaling) or (
            initializer.input_axes is not None and initializer.output_axes is not None):
        return initializer
    clone = copy.copy(initializer)
    clone.input_axes, clone.output_axes = list(input_axes), list(output_axes)
    return clone
