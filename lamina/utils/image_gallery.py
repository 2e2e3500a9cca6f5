"""Keras 3's gallery plots: ``plot_image_gallery`` and the bounding-box and
segmentation-mask galleries built on it. Drawn with matplotlib (``pip install
lamina[plots]``)."""
from __future__ import annotations

import functools
import math

import numpy as np

from .. import backend as _backend
from .image_arrays import batch_of_images, channels_last, host_array, to_value_range
from .optional_import import import_optional
from .bounding_boxes_drawing import draw_bounding_boxes
from .segmentation_masks_drawing import draw_segmentation_masks


def plot_image_gallery(images, y_true=None, y_pred=None, label_map=None, rows=None,
                       cols=None, value_range=(0, 255), scale=2, path=None, show=None,
                       transparent=True, dpi=60, legend_handles=None, data_format=None):
    """A grid of ``rows`` x ``cols`` images of the batch (by default about square), each
    titled with ``label_map[y_true[i]]`` / ``label_map[y_pred[i]]`` when given; saved to
    ``path``, else shown. Returns the matplotlib Figure."""
    what = "plot_image_gallery"
    figure_module = import_optional("matplotlib.figure", "plots", what)
    if path is not None and show:
        raise ValueError(f"{what}: pass either 'path' or show=True, not both")
    if (y_true is not None or y_pred is not None) and label_map is None:
        raise ValueError(f"{what}: 'y_true' or 'y_pred' needs a 'label_map'")
    show = path is None if show is None else show
    images = batch_of_images(what, images)
    images = channels_last(images, data_format or _backend.image_data_format())
    batch = images.shape[0]
    rows = rows or int(math.ceil(math.sqrt(batch)))
    cols = cols or int(math.ceil(batch // rows))       # Keras's arithmetic
    if rows * cols > batch:
        raise ValueError(f"{what}: a {rows}x{cols} gallery needs {rows * cols} images; "
                         f"received {batch}")
    images = to_value_range(images, value_range)
    y_true = None if y_true is None else host_array(y_true)
    y_pred = None if y_pred is None else host_array(y_pred)
    if show:
        figure = import_optional("matplotlib.pyplot", "plots", what).figure(
            figsize=(cols * scale, rows * scale), frameon=False, layout="tight")
    else:
        figure = figure_module.Figure(figsize=(cols * scale, rows * scale), frameon=False,
                                      layout="tight")
    axes = figure.subplots(rows, cols, squeeze=False, sharex="row", sharey="col")
    if legend_handles is not None:
        figure.legend(handles=legend_handles, loc="lower center")
    for index, ax in enumerate(axes.ravel()):
        picture = images[index].astype("uint8")
        ax.imshow(picture[..., 0] if picture.shape[-1] == 1 else picture,
                  cmap="gray" if picture.shape[-1] == 1 else None)
        ax.margins(x=0, y=0)
        ax.axis("off")
        title = []
        if y_true is not None and index < len(y_true):
            title.append(f"Label: {label_map.get(_key(y_true[index]), 'Unknown')}")
        if y_pred is not None and index < len(y_pred):
            title.append(f"Pred: {label_map.get(_key(y_pred[index]), 'Unknown')}")
        if title:
            ax.set_title("  ".join(title), fontsize=8)
    if path is not None:
        figure.savefig(path, pad_inches=0, bbox_inches="tight", transparent=transparent,
                       dpi=dpi)
    elif show:
        import_optional("matplotlib.pyplot", "plots", what).show()
    return figure


def _key(label):
    return label.item() if hasattr(label, "item") else label


def plot_bounding_box_gallery(images, bounding_box_format, y_true=None, y_pred=None,
                              value_range=(0, 255), true_color=(0, 188, 212),
                              pred_color=(255, 235, 59), line_thickness=2, font_scale=1.0,
                              text_thickness=None, class_mapping=None,
                              ground_truth_mapping=None, prediction_mapping=None,
                              legend=False, legend_handles=None, rows=None, cols=None,
                              data_format=None, **kwargs):
    """``plot_image_gallery`` of the images with the true boxes drawn in ``true_color``
    and the predicted ones in ``pred_color``; ``legend`` adds a legend of the two."""
    what = "plot_bounding_box_gallery"
    import_optional("matplotlib.patches", "plots", what)
    data_format = data_format or _backend.image_data_format()
    images = channels_last(batch_of_images(what, images), data_format)
    draw = functools.partial(draw_bounding_boxes, bounding_box_format=bounding_box_format,
                             line_thickness=line_thickness, text_thickness=text_thickness,
                             font_scale=font_scale, data_format="channels_last")
    if y_true is not None:
        images = draw(images, y_true, color=true_color,
                      class_mapping=ground_truth_mapping or class_mapping)
    if y_pred is not None:
        images = draw(images, y_pred, color=pred_color,
                      class_mapping=prediction_mapping or class_mapping)
    if legend:
        if legend_handles:
            raise ValueError(f"{what}: pass 'legend' or 'legend_handles', not both")
        patch = import_optional("matplotlib.patches", "plots", what).Patch
        legend_handles = [patch(color=np.array(true_color) / 255.0, label="Ground Truth"),
                          patch(color=np.array(pred_color) / 255.0, label="Prediction")]
    return plot_image_gallery(images, value_range=value_range, legend_handles=legend_handles,
                              rows=rows, cols=cols, data_format="channels_last", **kwargs)


def plot_segmentation_mask_gallery(images, num_classes, value_range=(0, 255), y_true=None,
                                   y_pred=None, color_mapping=None, blend=True, alpha=0.8,
                                   ignore_index=-1, data_format=None, **kwargs):
    """One row per image: the image, then its true and predicted masks drawn over it."""
    what = "plot_segmentation_mask_gallery"
    data_format = data_format or _backend.image_data_format()
    images = channels_last(batch_of_images(what, images), data_format)
    draw = functools.partial(draw_segmentation_masks, num_classes=num_classes,
                             color_mapping=color_mapping, alpha=alpha, blend=blend,
                             ignore_index=ignore_index, data_format="channels_last")
    columns = [images]
    for masks in (y_true, y_pred):
        if masks is not None:
            masks = channels_last(host_array(masks), data_format).astype("int32")
            columns.append(np.asarray(draw(images, masks), dtype=images.dtype))
    gallery = np.stack([column[i] for i in range(images.shape[0]) for column in columns])
    return plot_image_gallery(gallery, value_range=value_range, rows=images.shape[0],
                              cols=len(columns), data_format="channels_last", **kwargs)
