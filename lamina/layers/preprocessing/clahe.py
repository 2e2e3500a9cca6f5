"""Keras 3's ``ContrastLimitedAdaptiveHistogramEqualization`` (CLAHE)."""
from __future__ import annotations

import numbers

from ... import ops
from .augmentation_base import AugmentationLayer, rescale, value_range_pair


class ContrastLimitedAdaptiveHistogramEqualization(AugmentationLayer):
    """Equalize each tile of a ``tile_grid_size`` grid (pixels truncated to 0..255 bins,
    each bin clipped at ``clip_limit * tile_pixels / 256`` and the excess spread evenly),
    blending the four nearest tiles' mappings bilinearly, as Keras does. The image is
    padded symmetrically to whole tiles for the histograms. Deterministic: it applies
    whatever ``training`` is.

    Args:
        value_range: ``(low, high)``, the range of the input pixel values (e.g. ``(0, 255)`` or
            ``(0, 1)``); the output is clipped to it.
        clip_limit: Histogram bins are clipped at ``clip_limit * tile_pixels / 256``.
        tile_grid_size: ``(rows, cols)`` of the grid of tiles equalized separately.
        data_format: 'channels_last' (inputs shaped ``(batch, ..., channels)``) or
            'channels_first' (``(batch, channels, ...)``); None uses
            ``keras.config.image_data_format()``.
    """

    deterministic = True

    def __init__(self, value_range=(0, 255), clip_limit=4.0, tile_grid_size=(8, 8),
                 data_format=None, **kwargs):
        super().__init__(random=False, data_format=data_format, **kwargs)
        self.value_range = value_range_pair(self.name, value_range, sort=False)
        if isinstance(clip_limit, bool) or not isinstance(clip_limit, numbers.Real):
            raise ValueError(f"{self.name}: argument 'clip_limit' must be a number; "
                             f"received {clip_limit!r}")
        if not isinstance(tile_grid_size, (list, tuple)) or len(tile_grid_size) != 2 or \
                not all(isinstance(g, numbers.Integral) and g > 0 for g in tile_grid_size):
            raise ValueError(f"{self.name}: argument 'tile_grid_size' must be a pair of "
                             f"positive ints; received {tile_grid_size!r}")
        self.clip_limit = clip_limit
        self.tile_grid_size = tuple(int(g) for g in tile_grid_size)

    def transform(self, images, labels, training):
        x = rescale(images, self.value_range, (0, 255))
        x = self._clahe(x)
        return rescale(x, (0, 255), self.value_range), labels

    def _clahe(self, images):
        batch, height, width, channels = images.shape
        grid_h, grid_w = self.tile_grid_size
        tile_h, tile_w = -(-height // grid_h), -(-width // grid_w)
        pad_h, pad_w = tile_h * grid_h - height, tile_w * grid_w - width
        padded = images
        if pad_h or pad_w:
            padded = ops.pad(images, [[0, 0], [0, pad_h], [0, pad_w], [0, 0]],
                             mode="symmetric")
        tiles = ops.reshape(padded, (batch, grid_h, tile_h, grid_w, tile_w, channels))
        tiles = ops.reshape(ops.transpose(tiles, (0, 1, 3, 5, 2, 4)),
                            (batch, grid_h, grid_w, channels, tile_h * tile_w))
        bins = ops.clip(ops.cast(tiles, "int32"), 0, 255)
        hists = ops.sum(ops.one_hot(bins, 256, dtype="float32"), axis=-2)
        if self.clip_limit > 0:
            limit = float(self.clip_limit) * (tile_h * tile_w) / 256.0
            clipped = ops.clip(hists, 0.0, limit)
            excess = ops.sum(ops.subtract(hists, clipped), axis=-1, keepdims=True)
            hists = ops.add(clipped, ops.divide(excess, 256.0))
        upper = ops.convert_to_tensor([[1.0 if i <= j else 0.0 for j in range(256)]
                                       for i in range(256)], dtype="float32")
        cdf = ops.matmul(hists, upper)
        cdf_min = ops.min(cdf, axis=-1, keepdims=True)
        denominator = ops.subtract(float(tile_h * tile_w), cdf_min)
        denominator = ops.where(ops.equal(denominator, 0.0), 1.0, denominator)
        cdf = ops.clip(ops.divide(ops.multiply(ops.subtract(cdf, cdf_min), 255.0),
                                  denominator), 0.0, 255.0)
        cdf = ops.concatenate([cdf[:, :1], cdf, cdf[:, -1:]], axis=1)
        cdf = ops.concatenate([cdf[:, :, :1], cdf, cdf[:, :, -1:]], axis=2)
        flat = ops.reshape(cdf, (-1,))

        def corners(size, tile, grid):
            grid_pos = [(i - tile / 2.0) / tile + 1.0 for i in range(size)]
            lower = [int(g // 1) for g in grid_pos]
            weight = [g - lo for g, lo in zip(grid_pos, lower)]
            lo = [min(max(v, 0), grid + 1) for v in lower]
            hi = [min(max(v + 1, 0), grid + 1) for v in lower]
            return lo, hi, weight

        y0, y1, wy = corners(tile_h * grid_h, tile_h, grid_h)
        x0, x1, wx = corners(tile_w * grid_w, tile_w, grid_w)
        stride_x = 256 * channels
        stride_y = stride_x * (grid_w + 2)
        stride_b = stride_y * (grid_h + 2)

        def column(values, shape, dtype="int32"):
            return ops.reshape(ops.convert_to_tensor(values, dtype=dtype), shape)
        pixels = ops.cast(ops.clip(padded, 0.0, 255.0), "int32")
        base = ops.add(ops.add(column([b * stride_b for b in range(batch)], (-1, 1, 1, 1)),
                               column([c * 256 for c in range(channels)], (1, 1, 1, -1))),
                       pixels)
        rows = [column([v * stride_y for v in y], (1, -1, 1, 1)) for y in (y0, y1)]
        cols = [column([v * stride_x for v in x], (1, 1, -1, 1)) for x in (x0, x1)]

        def read(row, col):
            index = ops.add(ops.add(base, row), col)
            return ops.reshape(ops.take(flat, ops.reshape(index, (-1,))), index.shape)
        wy_t = column(wy, (1, -1, 1, 1), "float32")
        wx_t = column(wx, (1, 1, -1, 1), "float32")
        top = ops.add(ops.multiply(read(rows[0], cols[0]), ops.subtract(1.0, wx_t)),
                      ops.multiply(read(rows[0], cols[1]), wx_t))
        bottom = ops.add(ops.multiply(read(rows[1], cols[0]), ops.subtract(1.0, wx_t)),
                         ops.multiply(read(rows[1], cols[1]), wx_t))
        out = ops.add(ops.multiply(top, ops.subtract(1.0, wy_t)), ops.multiply(bottom, wy_t))
        out = out[:, :height, :width, :]
        return out if out.dtype == images.dtype else ops.cast(out, images.dtype)

    def get_config(self) -> dict:
        return {**super().get_config(), "value_range": list(self.value_range),
                "clip_limit": self.clip_limit, "tile_grid_size": list(self.tile_grid_size)}
