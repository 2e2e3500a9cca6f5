"""What the ``*_dataset_from_directory`` functions share: Keras's checks of ``labels``,
``label_mode`` and ``format``, and the dataset of files they return."""
from __future__ import annotations

from .directory_index import training_or_validation
from ..core.ignored_arguments import warn_ignored
from .sample_dataset import LABEL_MODES, SampleDataset, encode_labels


def check_labels(what, labels, label_mode, class_names):
    if labels not in ("inferred", None):
        if not isinstance(labels, (list, tuple)):
            raise ValueError(f"{what}: argument 'labels' must be 'inferred', None or a "
                             f"list/tuple of integer labels, one per file; received "
                             f"{labels!r}")
        if class_names:
            raise ValueError(f"{what}: 'class_names' can only be passed with "
                             f"labels='inferred'; received labels={labels!r}, "
                             f"class_names={class_names!r}")
    if label_mode not in LABEL_MODES:
        raise ValueError(f"{what}: argument 'label_mode' must be 'int', 'categorical', "
                         f"'binary' or None; received {label_mode!r}")


def check_format(what, format):
    if format not in ("tf", "grain"):
        raise ValueError(f"{what}: argument 'format' must be 'tf' or 'grain'; received "
                         f"{format!r}")
    if format == "grain":
        warn_ignored(what, "format", format, "Lamina has neither tf.data nor grain; both "
                     "formats return a Lamina SampleDataset (a PyDataset)")


def directory_dataset(paths, labels, load, batch_size, label_mode, class_names, shuffle,
                      seed, collate=None):
    """A SampleDataset of files with Keras's ``class_names`` and ``file_paths``."""
    targets = encode_labels(labels, label_mode, len(class_names or ()))
    dataset = SampleDataset(paths, targets, load, batch_size=batch_size, shuffle=shuffle,
                            seed=seed, collate=collate, class_names=class_names)
    dataset.file_paths = list(paths)
    return dataset


def directory_subsets(what, found, directory, paths, labels, validation_split, subset,
                      shuffle, verbose, build):
    """Keras's ``subset`` argument: the "training" or "validation" dataset (or both, as a
    list, the validation one never reshuffled) of ``build(paths, labels, reshuffle)``.
    ``found`` names the files in the empty-subset error, e.g. "images ... allowed formats:
    .png"."""
    def make(subset_name, reshuffle):
        subset_paths, subset_labels = training_or_validation(
            paths, labels, validation_split, subset_name, verbose)
        if not subset_paths:
            kind = {"training": "training ", "validation": "validation "}.get(subset_name, "")
            raise ValueError(f"{what}: no {kind}{found[0]} found in directory {directory!r}; "
                             f"{found[1]}")
        return build(subset_paths, subset_labels, reshuffle)

    if subset == "both":
        return [make("training", shuffle), make("validation", False)]
    return make(subset, shuffle)
