"""Keras 3's ``keras.visualization``: drawing boxes and masks on images, and galleries.

Drawing boxes uses Pillow (``pip install lamina[images]``; Keras needs OpenCV), the
galleries matplotlib (``pip install lamina[plots]``); neither is imported until used.
The implementations live in ``lamina.utils`` (an I/O edge: host images in and out).
"""
from ..utils.bounding_boxes_drawing import draw_bounding_boxes
from ..utils.image_gallery import (plot_bounding_box_gallery, plot_image_gallery,
                                   plot_segmentation_mask_gallery)
from ..utils.segmentation_masks_drawing import draw_segmentation_masks

__all__ = ["draw_bounding_boxes", "draw_segmentation_masks", "plot_bounding_box_gallery",
           "plot_image_gallery", "plot_segmentation_mask_gallery"]
