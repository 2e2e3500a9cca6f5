"""Keras 3's ``keras.utils.bounding_boxes``: box formats, geometry, anchor deltas and
IoU, on host numpy arrays (Keras returns backend tensors)."""
from .converters import affine_transform, clip_to_image_size, convert_format, crop, pad
from .deltas import decode_deltas_to_boxes, encode_box_to_deltas
from .iou import compute_ciou, compute_iou

__all__ = ["affine_transform", "clip_to_image_size", "convert_format", "crop", "pad",
           "decode_deltas_to_boxes", "encode_box_to_deltas", "compute_ciou", "compute_iou"]
