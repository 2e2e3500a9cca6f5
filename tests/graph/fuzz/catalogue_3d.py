"""Shape rules for volumes: inputs (depth, height, width, channels), a share of the models.

Same contract as ``catalogue.py``: ``(r, shape) -> Choice | None``. Volumes stay small
(at most 4x4x4x2 = 128 elements per sample) so that a training step stays cheap.
"""
from __future__ import annotations

from .catalogue import PADDINGS, Choice, _act, _units


def _volume(fn):
    return lambda r, s: fn(r, s) if len(s) == 4 else None


@_volume
def conv3d(r, s):
    extra = r.choice(["", ", strides=2", ", dilation_rate=2"])
    return Choice(f"layers.Conv3D({_units(r) % 3 + 1}, {r.randint(1, 2)}, "
                  f"padding={r.choice(PADDINGS)!r}, activation={_act(r)!r}{extra})")


@_volume
def pool3d(r, s):
    kind = r.choice(["MaxPooling3D", "AveragePooling3D"])
    size = r.choice(["2", "(2, 1, 2)", "1"])
    return Choice(f"layers.{kind}({size}, padding={r.choice(PADDINGS)!r})")


@_volume
def global_pool3d(r, s):
    return Choice(f"layers.{r.choice(['GlobalMaxPooling3D', 'GlobalAveragePooling3D'])}()")


@_volume
def volume_reshaping(r, s):
    return Choice(r.choice(["layers.Cropping3D(((1, 0), (0, 1), (1, 0)))",
                            "layers.ZeroPadding3D(((1, 0), (0, 0), (0, 1)))",
                            "layers.UpSampling3D((1, 2, 1))",
                            f"layers.SpatialDropout3D(0.3, seed={r.randint(0, 9)})",
                            "layers.Permute((3, 1, 2, 4))",
                            f"layers.Reshape(({s[0] * s[1]}, {s[2]}, {s[3]}))",
                            f"layers.Reshape(({s[0] * s[1] * s[2]}, {s[3]}))"]))


RULES = [conv3d, pool3d, global_pool3d, volume_reshaping]
