"""Keras 3's dict inputs of the image layers: ``{"images": ..., "labels": ...,
"bounding_boxes": {"boxes": ..., "labels": ...}, "segmentation_masks": ...}``.

The layer draws one transformation; ``images`` go through the layer's image path and the
other entries through its ``transform_labels``, ``transform_bounding_boxes`` and
``transform_segmentation_masks`` with that same transformation (one image without the batch
axis: its boxes and masks get a batch axis of 1 for the work, as in Keras). Like Keras,
the results are written back into the dict given, which is also returned."""
from __future__ import annotations

from .... import ops


def validate_bounding_boxes(layer: str, bounding_boxes) -> dict:
    """A ``{"boxes", "labels"}`` dict as tensors (boxes float32), rank-checked."""
    if not isinstance(bounding_boxes, dict) or "boxes" not in bounding_boxes or \
            "labels" not in bounding_boxes:
        raise ValueError(f"{layer}: expected `bounding_boxes` to be a dict with keys 'boxes' "
                         f"and 'labels'; received bounding_boxes={bounding_boxes!r}")
    boxes = ops.convert_to_tensor(bounding_boxes["boxes"], dtype="float32")
    labels = ops.convert_to_tensor(bounding_boxes["labels"])
    if len(boxes.shape) not in (2, 3) or boxes.shape[-1] != 4:
        raise ValueError(f"{layer}: expected bounding_boxes['boxes'] to have rank 2 or 3, "
                         f"with shape (num_boxes, 4) or (batch_size, num_boxes, 4); received "
                         f"bounding_boxes['boxes'].shape={tuple(boxes.shape)}")
    allowed = (1, 2) if len(boxes.shape) == 2 else (2, 3)
    if len(labels.shape) not in allowed:
        raise ValueError(f"{layer}: found bounding_boxes['boxes'].shape="
                         f"{tuple(boxes.shape)} and expected bounding_boxes['labels'] to have "
                         f"rank {allowed[0]} or {allowed[1]}; received "
                         f"bounding_boxes['labels'].shape={tuple(labels.shape)}")
    return {**bounding_boxes, "boxes": boxes, "labels": labels}


def _batched(fn, value, is_batched, keys=None):
    """``fn`` applied to ``value`` with a batch axis (added and removed when one image)."""
    if is_batched:
        return fn(value)
    if keys is None:
        return ops.squeeze(fn(ops.expand_dims(value, 0)), 0)
    value = {k: ops.expand_dims(v, 0) if k in keys else v for k, v in value.items()}
    out = fn(value)
    return {k: ops.squeeze(v, 0) if k in keys else v for k, v in out.items()}


def transform_dict(layer, data: dict, images, transformation, training):
    """Fill ``data`` (Keras's dict input) with ``images`` (already transformed) and the
    other entries transformed by ``layer``'s hooks with ``transformation``."""
    if "images" not in data:
        raise ValueError(f"{layer.name}: a dict input needs the key 'images'; received keys "
                         f"{sorted(data)}")
    is_batched = len(data["images"].shape) == 4 if hasattr(data["images"], "shape") else \
        len(ops.convert_to_tensor(data["images"]).shape) == 4
    data["images"] = images
    if "bounding_boxes" in data:
        if not layer.bounding_box_format:
            raise ValueError(
                f"{layer.name}: you passed an input with a 'bounding_boxes' key, but you "
                f"didn't specify a bounding box format. Pass a `bounding_box_format` "
                f"argument to your {type(layer).__name__} layer, e.g. "
                f"`bounding_box_format='xyxy'`.")
        boxes = validate_bounding_boxes(layer.name, data["bounding_boxes"])
        data["bounding_boxes"] = _batched(
            lambda b: layer.transform_bounding_boxes(b, transformation=transformation,
                                                     training=training),
            boxes, is_batched, keys=("boxes", "labels"))
    if "labels" in data:
        data["labels"] = _batched(
            lambda v: layer.transform_labels(v, transformation=transformation,
                                             training=training),
            ops.convert_to_tensor(data["labels"]), is_batched)
    if "segmentation_masks" in data:
        data["segmentation_masks"] = _batched(
            lambda v: layer.transform_segmentation_masks(
                v, transformation=transformation, training=training),
            ops.convert_to_tensor(data["segmentation_masks"]), is_batched)
    return data
