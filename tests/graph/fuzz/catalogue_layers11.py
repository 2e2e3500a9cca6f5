"""Shape rules for the issue-11 layers the harness walk cannot generate: layers that take a
layer (SpectralNormalization, Pipeline), a second input (GroupQueryAttention), a call
argument (ReversibleEmbedding's reverse projection) or 6-D inputs (ConvLSTM3D, fed through a
Pipeline that reshapes a volume into a sequence of volumes).

Same contract as ``catalogue.py``: ``(r, shape) -> Choice | None``.
"""
from __future__ import annotations

from .catalogue import Choice, _act, _units


def spectral_normalization(r, s):
    if len(s) == 1:
        inner = f"layers.Dense({_units(r)}, activation={_act(r)!r})"
    elif len(s) == 3:
        inner = f"layers.Conv2D({_units(r) % 3 + 1}, 2, padding='same')"
    else:
        return None
    extra = f", power_iterations={r.randint(1, 3)}" if r.random() < 0.5 else ""
    return Choice(f"layers.SpectralNormalization({inner}{extra})", stateful=True)


def pipeline(r, s):
    if len(s) != 1:
        return None
    return Choice(f"layers.Pipeline([layers.Dense({_units(r)}), "
                  f"layers.LayerNormalization(), layers.Activation({_act(r)!r})])")


def group_query_attention(r, s):
    if len(s) != 2:
        return None
    kv = r.randint(1, 2)
    return Choice(f"layers.GroupQueryAttention(head_dim={r.randint(1, 3)}, "
                  f"num_query_heads={kv * r.randint(1, 2)}, num_key_value_heads={kv})",
                  call="{layer}({x}, {x})")


def reversible_embedding(r, s):
    if len(s) != 2:
        return None
    soft_cap = ", logit_soft_cap=2.0" if r.random() < 0.5 else ""
    return Choice(f"layers.ReversibleEmbedding({r.randint(2, 5)}, {s[-1]}{soft_cap})",
                  call="{layer}({x}, reverse=True)")


def conv_lstm3d(r, s):
    if len(s) != 4:
        return None
    steps = f"layers.Reshape(({s[0]}, {s[1]}, {s[2]}, 1, {s[3]}))"
    return Choice(f"layers.Pipeline([{steps}, layers.ConvLSTM3D({r.randint(1, 2)}, 2, "
                  f"padding='same', return_sequences=True), "
                  f"layers.Reshape(({s[0]}, {s[1]}, {s[2]}, -1))])")


RULES = [spectral_normalization, pipeline, group_query_attention, reversible_embedding,
         conv_lstm3d]
