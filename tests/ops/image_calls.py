"""The ``keras.ops.image`` calls checked against Keras 3.15.1's numbers.

Shared by tests/ops/test_image.py (Lamina) and tests/ops/image_reference_make.py (which
ran them under real Keras, numpy backend, and wrote tests/ops/image_reference.npz).
Each call is (label, function name, positional args, keyword args); arrays are float32.
"""
import numpy as np

_rng = np.random.default_rng(2024)
IMG = _rng.uniform(0, 1, (2, 7, 8, 3)).astype("float32")      # batch, NHWC
ONE = _rng.uniform(0, 1, (6, 5, 3)).astype("float32")         # one image, HWC
CHW = np.transpose(IMG, (0, 3, 1, 2)).copy()                  # channels_first batch
VOL = _rng.uniform(0, 1, (1, 4, 5, 6, 2)).astype("float32")   # NDHWC volume
GRID = _rng.uniform(-1.5, 8.5, (2, 4, 5)).astype("float32")   # map_coordinates (2-D)
T1 = np.array([1.1, 0.2, -0.7, -0.15, 0.9, 1.3, 0, 0], "float32")
T2 = np.array([[0.8, -0.3, 2.2, 0.25, 1.2, -1.1, 0, 0],
               [1.0, 0.0, 0.5, 0.0, 1.0, -0.5, 0, 0]], "float32")
START = np.array([[0, 0], [7, 0], [0, 6], [7, 6]], "float32")
END = np.array([[0.5, 1], [6.5, 0.2], [0.3, 5.5], [7.2, 6.1]], "float32")

CALLS = [
    ("gray", "rgb_to_grayscale", (IMG,), {}),
    ("gray_cf", "rgb_to_grayscale", (CHW,), {"data_format": "channels_first"}),
    ("hsv", "rgb_to_hsv", (IMG,), {}),
    ("hsv_one", "rgb_to_hsv", (ONE,), {}),
    ("rgb", "hsv_to_rgb", (IMG,), {}),
    ("rgb_cf", "hsv_to_rgb", (CHW,), {"data_format": "channels_first"}),
    ("resize_down", "resize", (IMG, (4, 5)), {}),
    ("resize_up", "resize", (IMG, (11, 13)), {}),
    ("resize_nearest", "resize", (IMG, (5, 11)), {"interpolation": "nearest"}),
    ("resize_bicubic", "resize", (IMG, (9, 6)), {"interpolation": "bicubic"}),
    ("resize_lanczos3", "resize", (ONE, (8, 3)), {"interpolation": "lanczos3"}),
    ("resize_lanczos5", "resize", (ONE, (4, 7)), {"interpolation": "lanczos5"}),
    ("resize_antialias", "resize", (IMG, (3, 4)), {"antialias": True}),
    ("resize_crop", "resize", (IMG, (4, 2)), {"crop_to_aspect_ratio": True}),
    ("resize_pad", "resize", (IMG, (4, 2)), {"pad_to_aspect_ratio": True,
                                             "fill_value": 0.5}),
    ("resize_pad_w", "resize", (IMG, (2, 6)), {"pad_to_aspect_ratio": True}),
    ("resize_cf", "resize", (CHW, (5, 3)), {"data_format": "channels_first"}),
    ("affine", "affine_transform", (IMG[:1], T1), {}),
    ("affine_batch", "affine_transform", (IMG, T2), {}),
    ("affine_nearest", "affine_transform", (IMG, T2), {"interpolation": "nearest",
                                                        "fill_value": 0.25}),
    ("affine_reflect", "affine_transform", (IMG, T2), {"fill_mode": "reflect"}),
    ("affine_wrap", "affine_transform", (IMG, T2), {"fill_mode": "wrap"}),
    ("affine_mirror", "affine_transform", (IMG, T2), {"fill_mode": "mirror"}),
    ("affine_edge", "affine_transform", (IMG, T2), {"fill_mode": "nearest"}),
    ("affine_one", "affine_transform", (ONE, T1), {"fill_mode": "reflect"}),
    ("affine_cf", "affine_transform", (CHW, T2), {"data_format": "channels_first"}),
    ("map", "map_coordinates", (IMG[0, :, :, 0], GRID, 1), {}),
    ("map_nearest", "map_coordinates", (IMG[0, :, :, 0], GRID, 0), {"fill_mode": "nearest"}),
    ("map_reflect", "map_coordinates", (IMG[0, :, :, 0], GRID, 1), {"fill_mode": "reflect"}),
    ("map_wrap", "map_coordinates", (IMG[0, :, :, 0], GRID, 1), {"fill_mode": "wrap"}),
    ("map_mirror", "map_coordinates", (IMG[0, :, :, 0], GRID, 1), {"fill_mode": "mirror"}),
    ("map_fill", "map_coordinates", (IMG[0, :, :, 0], GRID, 1), {"fill_value": 0.5}),
    ("perspective", "perspective_transform", (IMG, START, END), {}),
    ("perspective_nearest", "perspective_transform", (IMG, START, END),
     {"interpolation": "nearest", "fill_value": 0.5}),
    ("blur", "gaussian_blur", (IMG,), {}),
    ("blur_5x3", "gaussian_blur", (IMG, (5, 3), (1.5, 0.7)), {}),
    ("blur_one", "gaussian_blur", (ONE, (3, 5), (0.8, 2.0)), {}),
    ("sobel", "sobel_edges", (IMG,), {}),
    ("ssim", "ssim", (IMG, IMG[::-1]), {"filter_size": 3}),
    ("ssim_one", "ssim", (ONE, ONE * 0.7 + 0.1), {"filter_size": 5, "filter_sigma": 1.0,
                                                  "max_val": 2.0}),
    ("patches", "extract_patches", (IMG, 2), {}),
    ("patches_same", "extract_patches", (IMG, (3, 2)), {"strides": (2, 3),
                                                        "padding": "same"}),
    ("patches_dilated", "extract_patches", (ONE, 2), {"strides": 1, "dilation_rate": 2}),
    ("patches_3d", "extract_patches_3d", (VOL, 2), {}),
    ("patches_3d_same", "extract_patches_3d", (VOL, (2, 3, 2)), {"strides": (1, 2, 3),
                                                                 "padding": "same"}),
    ("crop", "crop_images", (IMG,), {"top_cropping": 1, "left_cropping": 2,
                                     "target_height": 4, "target_width": 5}),
    ("crop_br", "crop_images", (ONE,), {"bottom_cropping": 1, "right_cropping": 2,
                                        "target_height": 3, "target_width": 2}),
    ("pad", "pad_images", (IMG,), {"top_padding": 1, "left_padding": 2,
                                   "target_height": 10, "target_width": 11}),
    ("pad_br", "pad_images", (CHW,), {"bottom_padding": 2, "right_padding": 1,
                                      "top_padding": 0, "left_padding": 3,
                                      "data_format": "channels_first"}),
    ("scale_translate", "scale_and_translate", (IMG, (2, 9, 5, 3), [1.3, 0.6], [0.4, -0.2],
                                                (1, 2), "bilinear"), {}),
    ("scale_translate_cubic", "scale_and_translate", (ONE, (4, 9, 3), [0.7, 1.8],
                                                      [0.0, 0.5], (0, 1), "cubic"),
     {"antialias": False}),
]
