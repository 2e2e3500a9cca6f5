"""Rules for the image augmentation layers (rank-3 inputs: height, width, channels).

Their layer-harness cases pass ``training=False`` (their call defaults to True), which
the harness rules skip, so they are generated here, seeded, and run in the models'
training mode: the draws are counter-based, so graph mode draws what eager draws.
Colour layers that need RGB only fit 3-channel inputs. Same contract as catalogue.py.
"""
from __future__ import annotations

from .catalogue import Choice


def _image(fn):
    return lambda r, s: fn(r, s) if len(s) == 3 else None


def _rgb(fn):
    return lambda r, s: fn(r, s) if len(s) == 3 and s[-1] == 3 else None


ANY_CHANNELS = [
    "layers.AutoContrast(value_range=(-1, 1))",
    "layers.Solarization(0.2, 0.5, value_range=(-1, 1), seed={seed})",
    "layers.RandomInvert(0.5, value_range=(-1, 1), seed={seed})",
    "layers.MixUp(alpha=0.5, seed={seed})",
    "layers.CutMix(seed={seed})",
    "layers.RandomShear(0.3, 0.2, seed={seed})",
    "layers.RandomPerspective(scale=0.4, seed={seed})",
    "layers.Equalization(value_range=(-1, 1), bins=16)",
    "layers.RandAugment(value_range=(-1, 1), num_ops=2, factor=0.3, seed={seed})",
    "layers.RandomElasticTransform(value_range=(-1, 1), seed={seed})",
    "layers.MaxNumBoundingBoxes(4)",
    "layers.AugMix(value_range=(-1, 1), num_chains=2, chain_depth=2, seed={seed})",
    "layers.ContrastLimitedAdaptiveHistogramEqualization(value_range=(-1, 1), "
    "tile_grid_size=(2, 2))",
    "layers.RandomPosterization(4, value_range=(-1, 1), seed={seed})",
    "layers.RandomSharpness(0.8, value_range=(-1, 1), seed={seed})",
    "layers.RandomErasing(value_range=(-1, 1), seed={seed})",
    "layers.RandomGaussianBlur(value_range=(-1, 1), seed={seed})",
    # the random layers of item 4 (call defaults to training=True), same reason
    "layers.RandomBrightness(0.2, value_range=(-1, 1), seed={seed})",
    "layers.RandomContrast(0.3, value_range=(-1, 1), seed={seed})",
    "layers.RandomFlip(seed={seed}, bounding_box_format='xyxy')",
    "layers.RandomRotation(0.1, seed={seed})",
    "layers.RandomTranslation(0.1, 0.1, seed={seed})",
    "layers.RandomZoom(0.1, seed={seed})",
    "layers.RandomCrop({h}, {w}, seed={seed})",
]
RGB_ONLY = [
    "layers.RandomGrayscale(0.5, seed={seed})",
    "layers.RandomColorJitter((0, 1), 0.2, 0.2, 0.3, 0.1, seed={seed})",
    "layers.RandomHue(0.3, value_range=(0, 1), seed={seed})",
    "layers.RandomSaturation(0.4, value_range=(0, 1), seed={seed})",
    "layers.RandomColorDegeneration(0.5, value_range=(-1, 1), seed={seed})",
]


def _rule(template, wrap):
    return wrap(lambda r, s: Choice(template.format(seed=r.randint(0, 9), h=s[0] - 1,
                                                    w=s[1] - 1)))


@_image
def resizing(r, s):
    """Resizing with every kernel of ops.image.resize, antialiased or not."""
    method = r.choice(["bilinear", "nearest", "bicubic", "lanczos3", "lanczos5"])
    return Choice(f"layers.Resizing({r.randint(1, s[0] + 2)}, {r.randint(1, s[1] + 2)}, "
                  f"interpolation={method!r}, antialias={r.random() < 0.5}, "
                  f"crop_to_aspect_ratio={r.random() < 0.3})")


RULES = ([_rule(t, _image) for t in ANY_CHANNELS] + [_rule(t, _rgb) for t in RGB_ONLY]
         + [resizing])
