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
    """Batches of strings (a numpy object array, one entry per file, cut to
    ``max_length`` characters) and labels from a folder of class sub-folders; returns a
    ``SampleDataset`` (two for ``subset="both"``) with ``class_names`` and
    ``file_paths``."""
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
