"""Augmentation-layer calls whose Keras 3.15.1 output is deterministic (deterministic
layers, or random ones whose factor range has zero width), shared by
test_augment_reference.py and augment_reference_make.py (which ran them under real Keras,
numpy backend, into augment_reference.npz). Each: (label, layer name, kwargs, input,
training)."""
import numpy as np

_rng = np.random.default_rng(7)
IMG = _rng.uniform(0, 255, (3, 6, 7, 3)).astype("float32")
UNIT = _rng.uniform(0, 1, (2, 5, 4, 3)).astype("float32")
ONE = _rng.uniform(0, 255, (5, 6, 3)).astype("float32")
CHW = np.transpose(IMG, (0, 3, 1, 2)).copy()

CALLS = [
    ("autocontrast", "AutoContrast", {}, IMG, True),
    ("autocontrast_unit", "AutoContrast", {"value_range": (0, 1)}, UNIT, True),
    ("autocontrast_inference", "AutoContrast", {}, IMG, False),
    ("autocontrast_one", "AutoContrast", {}, ONE, True),
    ("solarize", "Solarization", {}, IMG, True),
    ("solarize_unit", "Solarization", {"value_range": (0, 1)}, UNIT, True),
    ("invert", "RandomInvert", {"factor": (1.0, 1.0)}, IMG, True),
    ("invert_unit", "RandomInvert", {"factor": (1.0, 1.0), "value_range": (0, 1)}, UNIT,
     True),
    ("invert_never", "RandomInvert", {"factor": 0.0}, IMG, True),
    ("grayscale", "RandomGrayscale", {"factor": 1.0}, IMG, True),
    ("grayscale_never", "RandomGrayscale", {"factor": 0.0}, IMG, True),
    ("hue_half_turn", "RandomHue", {"factor": (1.0, 1.0)}, IMG, True),
    ("hue_unit", "RandomHue", {"factor": (1.0, 1.0), "value_range": (0, 1)}, UNIT, True),
    ("saturation_double", "RandomSaturation", {"factor": (0.5, 0.5), "value_range": (0, 1)},
     UNIT, True),
    ("saturation_zero", "RandomSaturation", {"factor": (0.0, 0.0)}, IMG, True),
    ("degenerate", "RandomColorDegeneration", {"factor": (0.3, 0.3)}, IMG, True),
    ("degenerate_full", "RandomColorDegeneration", {"factor": (1.0, 1.0),
                                                    "value_range": (0, 1)}, UNIT, True),
    ("posterize_3", "RandomPosterization", {"factor": (3, 3)}, IMG, True),
    ("posterize_unit", "RandomPosterization", {"factor": (5, 5), "value_range": (0, 1)},
     UNIT, True),
    ("sharpness_smooth", "RandomSharpness", {"factor": (0.0, 0.0)}, IMG, True),
    ("sharpness_sharpen", "RandomSharpness", {"factor": (1.0, 1.0), "value_range": (0, 1)},
     UNIT, True),
    ("sharpness_identity", "RandomSharpness", {"factor": (0.5, 0.5)}, IMG, True),
    ("blur", "RandomGaussianBlur", {"factor": (1.0, 1.0), "sigma": (0.6, 0.6)}, IMG, True),
    ("blur_5x3", "RandomGaussianBlur", {"factor": (1.0, 1.0), "kernel_size": (5, 3),
                                        "sigma": (0.9, 0.9), "value_range": (0, 1)},
     UNIT, True),
    ("blur_never", "RandomGaussianBlur", {"factor": 0.0}, IMG, True),
    ("erase_all", "RandomErasing", {"factor": (1.0, 1.0), "scale": (1.0, 1.0),
                                    "fill_value": 7.0}, IMG, True),
    ("erase_rgb", "RandomErasing", {"factor": (1.0, 1.0), "scale": (1.0, 1.0),
                                    "fill_value": (10.0, 300.0, -2.0)}, IMG, True),
    ("erase_never", "RandomErasing", {"factor": 0.0}, IMG, True),
    ("jitter", "RandomColorJitter", {"brightness_factor": (0.1, 0.1),
                                     "saturation_factor": (0.5, 0.5),
                                     "hue_factor": (1.0, 1.0)}, IMG, True),
    ("equalize", "Equalization", {}, IMG, True),
    ("equalize_unit_bins", "Equalization", {"value_range": (0, 1), "bins": 64}, UNIT, True),
    ("equalize_one", "Equalization", {"bins": 32}, ONE, True),
    ("equalize_inference", "Equalization", {}, IMG, False),
    ("clahe", "ContrastLimitedAdaptiveHistogramEqualization", {"tile_grid_size": (2, 3)},
     IMG, True),
    ("clahe_pad", "ContrastLimitedAdaptiveHistogramEqualization",
     {"tile_grid_size": (4, 4), "clip_limit": 2.0}, IMG, False),
    ("clahe_unit", "ContrastLimitedAdaptiveHistogramEqualization",
     {"value_range": (0, 1), "tile_grid_size": (2, 2), "clip_limit": 0.0}, UNIT, True),
    ("clahe_one", "ContrastLimitedAdaptiveHistogramEqualization", {}, ONE, True),
]
