"""Bounding boxes in the image preprocessing layers (Keras 3's formats, clipping, the dict
input flow and each layer's box map), written with ``lamina.ops``."""
