"""``MaxNumBoundingBoxes``: the bounding boxes of a dict input padded or trimmed to a
fixed count."""
from __future__ import annotations

import numbers

from ... import ops
from .base_image_layer import BaseImageLayer


class MaxNumBoundingBoxes(BaseImageLayer):
    """Keras 3's ``MaxNumBoundingBoxes``: in a dict input, ``bounding_boxes["boxes"]``
    (``(num_boxes, 4)`` or ``(batch, num_boxes, 4)``) and ``["labels"]`` are trimmed or
    padded with ``fill_value`` to ``max_number`` boxes; images, labels and segmentation
    masks pass unchanged (boxes become float32, as Keras densifies them).

    Args:
        max_number: Number of boxes to pad or trim to.
        fill_value: Value of the padding boxes and labels.
        bounding_box_format: Format of the boxes (they are not converted).
    """

    def __init__(self, max_number, fill_value=-1, **kwargs):
        super().__init__(**kwargs)
        self.input_spec = None
        if isinstance(max_number, bool) or not isinstance(max_number, numbers.Integral) or \
                max_number < 1:
            raise ValueError(f"{self.name}: argument 'max_number' must be a positive int; "
                             f"received {max_number!r}")
        self.max_number = int(max_number)
        self.fill_value = int(fill_value)

    def call(self, inputs):
        if isinstance(inputs, dict):
            return self._call_dict(inputs, True, lambda x: x, None)
        return inputs

    def transform_images(self, images, transformation=None, training=True):
        return images

    def transform_segmentation_masks(self, segmentation_masks, transformation=None,
                                     training=True):
        return segmentation_masks

    def transform_bounding_boxes(self, bounding_boxes, transformation=None, training=True):
        """``boxes`` (batch, n, 4) and ``labels`` (batch, n) to ``max_number`` boxes."""
        boxes = ops.convert_to_tensor(bounding_boxes["boxes"])
        labels = ops.convert_to_tensor(bounding_boxes["labels"])
        keep = min(int(boxes.shape[1]), self.max_number)
        pad = self.max_number - keep
        boxes = ops.pad(boxes[:, :keep], ((0, 0), (0, pad), (0, 0)),
                        constant_values=self.fill_value)
        labels = ops.pad(labels[:, :keep], ((0, 0), (0, pad)), constant_values=self.fill_value)
        return {**bounding_boxes, "boxes": boxes, "labels": labels}

    def compute_output_shape(self, input_shape):
        if not isinstance(input_shape, dict) or "bounding_boxes" not in input_shape:
            return input_shape
        extra = set(input_shape["bounding_boxes"]) - {"boxes", "labels"}
        if extra:
            raise KeyError(f"{self.name}: there are unsupported keys in `bounding_boxes`: "
                           f"{sorted(extra)}. Only `boxes` and `labels` are supported.")
        out = {**input_shape, "bounding_boxes": dict(input_shape["bounding_boxes"])}
        for key in ("boxes", "labels"):
            shape = list(out["bounding_boxes"][key])
            shape[-2 if key == "boxes" else -1] = self.max_number
            out["bounding_boxes"][key] = tuple(shape)
        return out

    def get_config(self) -> dict:
        return {**super().get_config(), "max_number": self.max_number,
                "fill_value": self.fill_value}
