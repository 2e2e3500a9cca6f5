"""Ops between layers in functional models (``x + y``, ``x[:, 0]``, ``ops.tanh(x)``): in
the model's config they are op nodes (lamina/models/op_nodes.py), so a functional model
that holds them round-trips through ``get_config`` / ``from_config`` (checks.py builds its
graph twin that way). And ``unknown_start``: an image input of unknown height and width
(``Input((None, None, c))``) brought to the model's shape by ``ops.image.resize`` (crop or
pad to the aspect ratio) or ``ops.image.pad_images`` to a target size, so the model trains
through resize_images / resize_images_grad and check_size in both modes.

A rule is ``(r, shape) -> Choice | None`` as in catalogue.py; an op's Choice has no layer
(``code`` is "None") and ``call`` is the expression on ``{x}``.
"""
from __future__ import annotations

from .catalogue import Choice


def _op(call):
    return Choice("None", call=call)


def elementwise(r, s):
    return _op(r.choice(["ops.tanh({x}) + {x} * 0.5", "{x} * 2.0 - 1.0",
                         "ops.maximum({x}, 0.0) * {x} + {x}", "{x} + ops.sigmoid({x})",
                         "{x} - ops.mean({x}, axis=-1, keepdims=True)",
                         "{x} * ops.cos({x})", "ops.abs({x}) + 0.1 * {x}"]))


def indexing(r, s):
    if len(s) == 1:
        return _op(r.choice(["{x}[:, ::-1]", "{x}[:, 1:] * {x}[:, :-1]"])) if s[0] > 1 \
            else None
    return _op(r.choice(["{x}[:, 0]", "{x}[:, ::-1]", "{x}[..., :1] + {x}",
                         "{x}[:, 1:]" if s[0] > 1 else "{x}[:, :1]"]))


def reshaping(r, s):
    if len(s) == 1:
        return _op(r.choice(["ops.expand_dims({x}, -1)",
                             "ops.concatenate([{x}, ops.square({x})], axis=-1)"]))
    if len(s) == 2:
        return _op(r.choice(["ops.transpose({x}, (0, 2, 1))", "ops.reshape({x}, (-1, "
                             f"{s[0] * s[1]}))", "ops.sum({x}, axis=1)"]))
    return _op(r.choice(["ops.transpose({x}, (0, 2, 1, 3))" if len(s) == 3 else
                         "ops.mean({x}, axis=1)", "ops.max({x}, axis=-1)",
                         "ops.concatenate([{x}, {x} * 0.5], axis=1)"]))


RULES = [elementwise, indexing, reshaping]


def unknown_start(r, shape):
    """For an image ``shape`` (h, w, c): (the data's shape, the Input's shape with unknown
    height and width, the op Choice making it ``shape``), or None."""
    if len(shape) != 3:
        return None
    h, w, c = shape
    if r.random() < 0.65:
        data = (r.randint(2, 8), r.randint(2, 8), c)
        method = r.choice(["bilinear", "nearest", "bicubic", "lanczos3", "area"])
        aspect = r.choice(["", ", crop_to_aspect_ratio=True",
                           ", pad_to_aspect_ratio=True, fill_value=-0.5"])
        return data, (None, None, c), _op(
            f"ops.image.resize({{x}}, ({h}, {w}), interpolation={method!r}, "
            f"antialias={r.random() < 0.3}{aspect})")
    top, left = r.randint(0, min(2, h - 1)), r.randint(0, min(2, w - 1))
    data = (r.randint(1, h - top), r.randint(1, w - left), c)
    sides = r.choice([f"top_padding={top}, left_padding={left}",
                      f"bottom_padding={top}, right_padding={left}"])
    return data, (None, None, c), _op(
        f"ops.image.pad_images({{x}}, {sides}, target_height={h}, target_width={w})")
