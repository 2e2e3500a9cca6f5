"""Listing a directory of class folders as Keras's ``*_dataset_from_directory`` do.

Labels are "inferred" from the sub-folder names in alphanumeric order, given as a list
(one per file, in the sorted file order), or None. Files are shuffled once with
``numpy.random.RandomState(seed)``, as Keras does, so that a "training" and a
"validation" call with the same seed split the same order.
"""
from __future__ import annotations

import os

import numpy as np

SUBSETS = ("training", "validation", "both", None)


def check_validation_split(what, validation_split, subset, shuffle, seed):
    """Keras's checks of ``validation_split`` and ``subset`` (and the seed they need)."""
    if validation_split and not 0 < validation_split < 1:
        raise ValueError(f"{what}: argument 'validation_split' must be between 0 and 1; "
                         f"received {validation_split}")
    if bool(validation_split) != bool(subset):
        raise ValueError(f"{what}: if 'subset' is set, 'validation_split' must be set, and "
                         f"inversely; received validation_split={validation_split!r}, "
                         f"subset={subset!r}")
    if subset not in SUBSETS:
        raise ValueError(f"{what}: argument 'subset' must be 'training', 'validation' or "
                         f"'both'; received {subset!r}")
    if validation_split and shuffle and seed is None:
        raise ValueError(f"{what}: when using 'validation_split' and shuffling the data, "
                         f"pass a 'seed' so that the training and validation subsets do "
                         f"not overlap")


def _valid_files(directory, follow_links, formats):
    for root, _, files in sorted(os.walk(directory, followlinks=follow_links),
                                 key=lambda entry: entry[0]):
        for name in sorted(files):
            if formats is None or name.lower().endswith(formats):
                yield os.path.join(root, name)


def index_directory(what, directory, labels, formats, class_names=None, shuffle=True,
                    seed=None, follow_links=False, verbose=True):
    """(file_paths, labels as an int32 array or None, class_names or None)."""
    if not os.path.isdir(directory):
        raise ValueError(f"{what}: argument 'directory' must be an existing folder; "
                         f"received {directory!r}")
    if labels == "inferred":
        folders = [name for name in sorted(os.listdir(directory))
                   if os.path.isdir(os.path.join(directory, name)) and not name.startswith(".")]
        if class_names is not None:
            if not set(class_names).issubset(folders):
                raise ValueError(f"{what}: 'class_names' must name sub-folders of the "
                                 f"directory; expected {folders} (or a subset of it), "
                                 f"received class_names={list(class_names)}")
            folders = list(class_names)     # the order given
    else:
        if class_names is not None:
            raise ValueError(f"{what}: 'class_names' can only be passed with "
                             f"labels='inferred'; received labels={labels!r}")
        folders = [""]
    paths, found = [], []
    for index, folder in enumerate(folders):
        folder_paths = list(_valid_files(os.path.join(directory, folder), follow_links,
                                         formats))
        paths += folder_paths
        found += [index] * len(folder_paths)
    if labels == "inferred":
        label_array = np.asarray(found, dtype="int32")
        names = list(folders)
    elif labels is None:
        label_array, names = None, None
    else:
        if len(labels) != len(paths):
            raise ValueError(f"{what}: 'labels' must have one label per file; received "
                             f"{len(labels)} labels for {len(paths)} files in "
                             f"{directory!r}")
        label_array = np.asarray(labels)
        names = [str(label) for label in sorted(set(labels))]
    if verbose:
        if label_array is None:
            print(f"Found {len(paths)} files.")
        else:
            print(f"Found {len(paths)} files belonging to {len(names)} classes.")
    if shuffle:
        seed = np.random.randint(1e6) if seed is None else seed
        np.random.RandomState(seed).shuffle(paths)
        if label_array is not None:
            np.random.RandomState(seed).shuffle(label_array)
    return paths, label_array, names


def training_or_validation(samples, labels, validation_split, subset, verbose=True):
    """The last ``int(validation_split * n)`` samples are the validation subset."""
    if not validation_split:
        return samples, labels
    count = int(validation_split * len(samples))
    if subset == "training":
        if verbose:
            print(f"Using {len(samples) - count} files for training.")
        keep = slice(0, len(samples) - count)
    else:
        if verbose:
            print(f"Using {count} files for validation.")
        keep = slice(len(samples) - count, len(samples))
    return samples[keep], (None if labels is None else labels[keep])
