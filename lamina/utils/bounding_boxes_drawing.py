"""Keras 3's ``keras.visualization.draw_bounding_boxes``, drawn with Pillow's ImageDraw
(Keras needs OpenCV) — ``pip install lamina[images]``."""
from __future__ import annotations

import numpy as np

from .. import backend as _backend
from .box_formats import to_xyxy
from .image_arrays import batch_of_images, host_array
from .optional_import import import_optional

WHAT = "draw_bounding_boxes"


def _uint8(images):
    if images.dtype.kind == "f" and images.size > 0:
        images = np.clip(images, 0, 1) * 255 if images.max() <= 1.0 else \
            np.clip(images, 0, 255)
    return images.astype("uint8")


def _text_origin(x, y, font_scale, thickness):
    """Above the box's corner, or inside it when there is no room above (as Keras)."""
    font_height = int(font_scale * 12)
    if y - 8 - 2 * font_height > 0:
        return x, y - 8 - font_height
    return x + 3, y + font_height + thickness + 3


def draw_bounding_boxes(images, bounding_boxes, bounding_box_format, class_mapping=None,
                        color=(128, 128, 128), line_thickness=2, text_thickness=1,
                        font_scale=1.0, data_format=None):
    """uint8 copies of ``images`` (a batch) with each box of ``bounding_boxes``
    (``{"boxes": (batch, n, 4), "labels": (batch, n)}``, optional ``"confidences"``)
    outlined in ``color``; labels found in ``class_mapping`` are written beside their
    box. Boxes labelled -1 are padding and skipped."""
    draw_module = import_optional("PIL.ImageDraw", "images", WHAT)
    image_module = import_optional("PIL.Image", "images", WHAT)
    font_module = import_optional("PIL.ImageFont", "images", WHAT)
    class_mapping = class_mapping or {}
    text_thickness = text_thickness or line_thickness
    data_format = data_format or _backend.image_data_format()
    images = batch_of_images(WHAT, images)
    if not isinstance(bounding_boxes, dict):
        raise TypeError(f"{WHAT}: 'bounding_boxes' must be a dict with 'boxes' and "
                        f"'labels'; received {type(bounding_boxes).__name__}")
    if "boxes" not in bounding_boxes or "labels" not in bounding_boxes:
        raise ValueError(f"{WHAT}: 'bounding_boxes' must have the keys 'boxes' and "
                         f"'labels'; received keys {sorted(bounding_boxes)}")
    if data_format == "channels_first":
        images = images.transpose(0, 2, 3, 1)
    height, width = images.shape[1:3]
    boxes = to_xyxy(WHAT, host_array(bounding_boxes["boxes"]), bounding_box_format,
                    height, width)
    labels = host_array(bounding_boxes["labels"])
    confidences = bounding_boxes.get("confidences")
    confidences = None if confidences is None else host_array(confidences)
    images = _uint8(images)
    font = font_module.load_default(size=max(6, int(round(12 * font_scale)))) \
        if hasattr(font_module, "load_default") else None
    color = tuple(int(c) for c in color)
    drawn = []
    for i, image in enumerate(images):
        channels = image.shape[-1]
        pil = image_module.fromarray(image[..., 0] if channels == 1 else image)
        pen = draw_module.Draw(pil)
        fill = color[0] if channels == 1 else color[:channels]
        for j in range(boxes.shape[1]):
            label = int(labels[i][j])
            if label == -1:
                continue
            x1, y1, x2, y2 = (int(v) for v in boxes[i, j])
            pen.rectangle([min(x1, x2), min(y1, y2), max(x1, x2), max(y1, y2)],
                          outline=fill, width=int(line_thickness))
            if label in class_mapping:
                text = str(class_mapping[label])
                if confidences is not None:
                    text = f"{text} | {float(confidences[i][j]):.2f}"
                pen.text(_text_origin(x1, y1, font_scale, text_thickness), text, fill=fill,
                         font=font)
        out = np.asarray(pil)
        drawn.append(out[..., None] if channels == 1 else out)
    return np.stack(drawn, axis=0)
