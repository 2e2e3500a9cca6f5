"""Keras 3's ``audio_dataset_from_directory`` for ``.wav`` files, read with the standard
library's ``wave`` module (8-, 16- and 32-bit PCM) instead of TensorFlow."""
from __future__ import annotations

import wave

import numpy as np

from .directory_dataset import check_labels, directory_dataset, directory_subsets
from .directory_index import check_validation_split, index_directory

__all__ = ["audio_dataset_from_directory", "read_wav"]

WHAT = "audio_dataset_from_directory"
PCM_TYPES = {1: ("uint8", 128.0, 128.0), 2: ("<i2", 0.0, 32768.0), 4: ("<i4", 0.0, 2.0 ** 31)}


def read_wav(path, desired_samples=-1):
    """(float32 array of shape (samples, channels) in [-1, 1), sample rate), as
    TensorFlow's ``decode_wav``: ``desired_samples`` >= 0 cuts or zero-pads the length."""
    with wave.open(path, "rb") as f:
        width, channels, rate = f.getsampwidth(), f.getnchannels(), f.getframerate()
        frames = f.readframes(f.getnframes())
    if width not in PCM_TYPES:
        raise ValueError(f"{WHAT}: {path!r} has {8 * width}-bit samples; Lamina reads 8-, "
                         f"16- and 32-bit PCM wav files")
    dtype, offset, scale = PCM_TYPES[width]
    audio = (np.frombuffer(frames, dtype=dtype).astype("float32") - offset) / scale
    audio = audio.reshape(-1, channels)
    if desired_samples is not None and desired_samples >= 0:
        fitted = np.zeros((desired_samples, channels), dtype="float32")
        fitted[:min(desired_samples, len(audio))] = audio[:desired_samples]
        audio = fitted
    return audio, rate


def _pad_to_longest(clips):
    longest = max(len(clip) for clip in clips)
    out = np.zeros((len(clips), longest, clips[0].shape[1]), dtype="float32")
    for i, clip in enumerate(clips):
        out[i, :len(clip)] = clip
    return out


def audio_dataset_from_directory(directory, labels="inferred", label_mode="int",
                                 class_names=None, batch_size=32, sampling_rate=None,
                                 output_sequence_length=None, ragged=False, shuffle=True,
                                 seed=None, validation_split=None, subset=None,
                                 follow_links=False, verbose=True):
    """Batches of float32 audio (batch, samples, channels) and labels from a folder of
    class sub-folders of ``.wav`` files. Clips are cut or zero-padded to
    ``output_sequence_length``, else padded to the batch's longest (``ragged=True``
    gives a list of unpadded clips per batch). Lamina does not resample:
    ``sampling_rate`` is checked against every file's rate.

    Args:
        directory: the folder holding one sub-folder of ``.wav`` files per class.
        labels: ``"inferred"`` (from the sub-folders, default), None, or a list of
            integer labels, one per file in sorted order.
        label_mode: ``"int"`` (default), ``"categorical"``, ``"binary"`` or None.
        class_names: an explicit list of sub-folder names (sets the order).
        batch_size: int, or None for unbatched samples (default 32).
        sampling_rate: int or None; every file must have this rate (Lamina does not
            resample).
        output_sequence_length: int or None; cut or zero-pad clips to this length.
        ragged: bool; give lists of unpadded clips (default False).
        shuffle: bool; shuffle the files (default True).
        seed: int, the seed of shuffling and splitting.
        validation_split: float in (0, 1), the fraction held out for validation.
        subset: ``"training"``, ``"validation"`` or ``"both"`` (with
            ``validation_split``).
        follow_links: bool; follow symbolic links to sub-folders (default False).
        verbose: bool; print the number of files and classes found (default True).

    Returns:
        A dataset of ``(audio, label)`` batches (two with ``subset="both"``).
    """
    check_labels(WHAT, labels, label_mode, class_names)
    if ragged and output_sequence_length is not None:
        raise ValueError(f"{WHAT}: 'ragged' and 'output_sequence_length' cannot both be "
                         f"set; received output_sequence_length={output_sequence_length}")
    if sampling_rate is not None:
        if not isinstance(sampling_rate, int) or isinstance(sampling_rate, bool):
            raise ValueError(f"{WHAT}: argument 'sampling_rate' must be an int; received "
                             f"{sampling_rate!r}")
        if sampling_rate <= 0:
            raise ValueError(f"{WHAT}: argument 'sampling_rate' must be higher than 0; "
                             f"received {sampling_rate}")
    if labels is None or label_mode is None:
        labels, label_mode = None, None
    check_validation_split(WHAT, validation_split, subset, shuffle, seed)
    if seed is None:
        seed = np.random.randint(1e6)
    paths, labels, class_names = index_directory(
        WHAT, directory, labels, (".wav",), class_names=class_names, shuffle=shuffle,
        seed=seed, follow_links=follow_links, verbose=verbose)
    if label_mode == "binary" and len(class_names) != 2:
        raise ValueError(f"{WHAT}: label_mode='binary' needs exactly 2 classes; received "
                         f"class_names={class_names}")

    def load(path):
        audio, rate = read_wav(path, -1 if output_sequence_length is None
                               else output_sequence_length)
        if sampling_rate is not None and rate != sampling_rate:
            raise ValueError(f"{WHAT}: {path!r} is sampled at {rate} Hz, not "
                             f"sampling_rate={sampling_rate}; Lamina does not resample")
        return audio

    collate = list if ragged else (np.stack if output_sequence_length else _pad_to_longest)

    def build(subset_paths, subset_labels, reshuffle):
        return directory_dataset(subset_paths, subset_labels, load, batch_size, label_mode,
                                 class_names, reshuffle, seed, collate=collate)

    return directory_subsets(WHAT, ("audio files", "allowed format: .wav"),
                             directory, paths, labels, validation_split,
                             subset, shuffle, verbose, build)
