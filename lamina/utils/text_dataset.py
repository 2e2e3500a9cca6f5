"""Keras 3's ``text_dataset_from_directory``: ``.txt`` files as batches of strings."""
from __future__ import annotations

import numpy as np

from .directory_dataset import check_format, check_labels, directory_dataset, directory_subsets
from .directory_index import check_validation_split, index_directory

__all__ = ["text_dataset_from_directory"]

WHAT = "text_dataset_from_directory"


def text_loader(max_length):
    def load(path):
        with open(path, "r", encoding="utf-8") as f:
            text = f.read()
        return text if max_length is None else text[:max_length]
    return load


def _strings(texts):
    return np.asarray(texts, dtype=object)


def text_dataset_from_directory(directory, labels="inferred", label_mode="int",
                                class_names=None, batch_size=32, max_length=None,
                                shuffle=True, seed=None, validation_split=None, subset=None,
                                follow_links=False, format="tf", verbose=True):
    """Make a dataset of texts and labels from a folder of class sub-folders.

    ``directory/pos/*.txt`` and ``directory/neg/*.txt`` give texts labelled by class. Each
    batch of texts is a numpy object array of strings, one per file.

    Args:
        directory: The folder. With ``labels="inferred"`` it holds one sub-folder per
            class.
        labels: ``"inferred"`` (default: from the sub-folder names), ``None`` (texts
            only), or a list/tuple of integer labels, one per file in sorted path order.
        label_mode: ``"int"`` (default), ``"categorical"`` (one-hot), ``"binary"`` (float,
            2 classes) or ``None`` (no labels).
        class_names: With ``labels="inferred"``, the sub-folders to use, in label order.
        batch_size: Texts per batch (default 32), or ``None`` for single texts.
        max_length: The most characters kept of each text; ``None`` (default) keeps all.
        shuffle: If ``True`` (default), shuffle the files (and reshuffle each epoch).
        seed: Random seed for the shuffle and the validation split.
        validation_split: A float in (0, 1): the fraction of the files kept for
            validation.
        subset: ``"training"``, ``"validation"`` or ``"both"`` (with
            ``validation_split``).
        follow_links: If ``True``, follow symbolic links to sub-folders.
        format: ``"tf"`` (default) or ``"grain"``; both return a ``SampleDataset``
            (``"grain"`` with a warning).
        verbose: If ``True`` (default), print how many files and classes were found.

    Returns:
        A ``SampleDataset`` of ``(texts, labels)`` batches with ``class_names`` and
        ``file_paths``; a pair ``(training, validation)`` for ``subset="both"``.

    Raises:
        ValueError: If an argument is not one of the values above.

    Example:

    >>> train = text_dataset_from_directory("aclImdb/train", batch_size=32, seed=1)
    >>> train.class_names
    ['neg', 'pos']
    """
    check_labels(WHAT, labels, label_mode, class_names)
    if labels is None or label_mode is None:
        labels, label_mode = None, None
    check_format(WHAT, format)
    check_validation_split(WHAT, validation_split, subset, shuffle, seed)
    if seed is None:
        seed = np.random.randint(1e6)
    paths, labels, class_names = index_directory(
        WHAT, directory, labels, (".txt",), class_names=class_names, shuffle=shuffle,
        seed=seed, follow_links=follow_links, verbose=verbose)
    if label_mode == "binary" and len(class_names) != 2:
        raise ValueError(f"{WHAT}: label_mode='binary' needs exactly 2 classes; received "
                         f"class_names={class_names}")
    load = text_loader(max_length)

    def build(subset_paths, subset_labels, reshuffle):
        return directory_dataset(subset_paths, subset_labels, load, batch_size, label_mode,
                                 class_names, reshuffle, seed, collate=_strings)

    return directory_subsets(WHAT, ("text files", "allowed format: .txt"),
                             directory, paths, labels, validation_split,
                             subset, shuffle, verbose, build)
