"""Keras 3's ``keras.preprocessing``: the dataset builders and the ``image`` and
``sequence`` helper modules (the same functions as ``lamina.utils``)."""
from . import image, sequence
from ..utils.image_dataset import image_dataset_from_directory
from ..utils.text_dataset import text_dataset_from_directory
from ..utils.timeseries_dataset import timeseries_dataset_from_array

__all__ = ["image", "sequence", "image_dataset_from_directory",
           "text_dataset_from_directory", "timeseries_dataset_from_array"]
