"""Keras 3's ``keras.preprocessing.image``: image file helpers and ``smart_resize``."""
from ..utils.image_utils import array_to_img, img_to_array, load_img, save_img, smart_resize

__all__ = ["array_to_img", "img_to_array", "load_img", "save_img", "smart_resize"]
