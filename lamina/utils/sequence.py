"""``pad_sequences`` (Keras's ``keras.utils.pad_sequences``) and ``normalize``."""
from __future__ import annotations

import numpy as np


def pad_sequences(sequences, maxlen=None, dtype="int32", padding="pre", truncating="pre",
                  value=0.0) -> np.ndarray:
    """Lists of sequences as one ``(len(sequences), maxlen, ...)`` array.

    Shorter sequences are padded with ``value`` and longer ones truncated, at the start
    (``"pre"``, the default) or the end (``"post"``); ``maxlen=None`` uses the longest.

    Args:
        sequences: a list of sequences (lists or arrays).
        maxlen: int or None, the length of the result (None: the longest sequence).
        dtype: the result's dtype (default ``"int32"``).
        padding: ``"pre"`` (default) or ``"post"``: where to pad.
        truncating: ``"pre"`` (default) or ``"post"``: where to cut.
        value: the padding value (default 0.0).

    Returns:
        A numpy array ``(len(sequences), maxlen, ...)``.

    Example:

    >>> import lamina as keras
    >>> keras.utils.pad_sequences([[1, 2], [3]], maxlen=3)
    array([[0, 1, 2],
           [0, 0, 3]], dtype=int32)
    """
    for name, choice in (("padding", padding), ("truncating", truncating)):
        if choice not in ("pre", "post"):
            raise ValueError(f"pad_sequences: argument '{name}' must be 'pre' or 'post'; "
                             f"received {choice!r}")
    if not hasattr(sequences, "__len__"):
        raise TypeError(f"pad_sequences: argument 'sequences' must be a list of sequences; "
                        f"received {type(sequences).__name__}")
    lengths, sample_shape = [], ()
    for position, sequence in enumerate(sequences):
        if not hasattr(sequence, "__len__"):
            raise ValueError(f"pad_sequences: every sequence must be a list or array; "
                             f"sequence {position} is {sequence!r}")
        lengths.append(len(sequence))
        if len(sequence) and not sample_shape:
            sample_shape = np.asarray(sequence).shape[1:]
    if maxlen is None:
        maxlen = max(lengths, default=0)
    if maxlen < 0:
        raise ValueError(f"pad_sequences: argument 'maxlen' must be >= 0; received {maxlen}")
    kind = np.dtype(dtype).kind
    if isinstance(value, str) and kind not in "OUS":
        raise ValueError(f"pad_sequences: a string 'value' ({value!r}) needs dtype object or "
                         f"str; received dtype {dtype!r}")
    result = np.full((len(lengths), maxlen) + sample_shape, value, dtype=dtype)
    for i, sequence in enumerate(sequences):
        if not len(sequence) or maxlen == 0:
            continue
        kept = np.asarray(sequence, dtype=dtype)
        kept = kept[-maxlen:] if truncating == "pre" else kept[:maxlen]
        if kept.shape[1:] != sample_shape:
            raise ValueError(f"pad_sequences: sequence {i} has elements of shape "
                             f"{kept.shape[1:]}; the others have {sample_shape}")
        if padding == "post":
            result[i, :len(kept)] = kept
        else:
            result[i, -len(kept):] = kept
    return result


def normalize(x, axis=-1, order=2) -> np.ndarray:
    """``x`` divided by its ``order``-norm along ``axis`` (zero vectors stay zero).

    Args:
        x: an array.
        axis: the axis to normalize along (default -1).
        order: the norm's order (default 2).

    Returns:
        A numpy array the shape of ``x``.

    Example:

    >>> import lamina as keras
    >>> keras.utils.normalize([[3.0, 4.0]])
    array([[0.6, 0.8]], dtype=float32)
    """
    array = np.asarray(x.numpy() if hasattr(x, "numpy") else x, dtype=np.float32)
    norm = np.atleast_1d(np.linalg.norm(array, order, axis))
    norm[norm == 0] = 1
    return array / np.expand_dims(norm, axis)
