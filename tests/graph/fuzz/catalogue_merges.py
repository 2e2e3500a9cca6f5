"""Layers taking two tensors of one shape: what joins two branches, or a second input.

``merge(r, shape)`` gives the merging layer's constructor code (called on ``[a, b]``); the
generator tries it on symbolic tensors and draws again when it does not fit (Dot and
Attention need particular ranks; Concatenate and Dot change the shape). Attention takes
``(..., steps, channels)`` samples of rank 2 or more (images too, as Keras 3.15).
"""
from __future__ import annotations

ELEMENTWISE = ["layers.Add()", "layers.Subtract()", "layers.Multiply()", "layers.Average()",
               "layers.Maximum()", "layers.Minimum()", "layers.Concatenate()"]


def dot(r, s):
    if len(s) == 1:
        axes = "-1"
    else:
        axes = r.choice(["-1", f"({len(s)}, {len(s)})", "1"])
    return f"layers.Dot(axes={axes}, normalize={r.random() < 0.3})"


def attention(r, s, kind):    # [query, value]: (steps, channels) twice
    args = []
    if r.random() < 0.5:
        args.append("use_scale=True")
    if kind == "Attention" and r.random() < 0.3:
        args.append("score_mode='concat'")
    return f"layers.{kind}({', '.join(args)})"


def merge(r, s, name=None):
    """A merging layer's code for two tensors of shape ``s`` (``name``: of that class)."""
    if name is None:
        roll = r.random()
        name = ("Dot" if roll < 0.15 else
                r.choice(["Attention", "AdditiveAttention"]) if roll < 0.3 and len(s) >= 2
                else r.choice(ELEMENTWISE)[len("layers."):-2])
    if name == "Dot":
        return dot(r, s)
    if name in ("Attention", "AdditiveAttention"):
        return attention(r, s, name)
    return f"layers.{name}()"
