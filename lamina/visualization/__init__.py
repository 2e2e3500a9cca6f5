"""Keras 3's ``keras.visualization``: drawing boxes and masks on images, and galleries.

Drawing boxes uses Pillow (``pip install lamina[images]``; Keras needs OpenCV), the
galleries matplotlib (``pip install lamina[plots]``); neither is imported until used.
"""
from .draw_bounding_boxes import draw_bounding_boxes
from .draw_segmentation_masks import draw_segmentation_masks
from .image_gallery import (plot_bounding_box_gallery, plot_image_gallery,
                            plot_segmentation_mask_gallery)

__all__ = ["draw_bounding_boxes", "draw_segmentation_masks", "plot_bounding_box_gallery",
           "plot_image_gallery", "plot_segmentation_mask_gallery"]
