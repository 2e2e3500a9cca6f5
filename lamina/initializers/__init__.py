"""Initializers: what a layer's weights start as (Keras 3's ``keras.initializers``).

``get`` turns what a user writes (``kernel_initializer="he_normal"``, a config dict read
from a file, an instance, a function ``(shape, dtype) -> tensor``) into an initializer;
``serialize``/``deserialize`` are its config round trip, in Keras's file format.
"""
from __future__ import annotations

from typing import Any, Callable

from ..registry import register_family, serialize_keras_object
from ..registry.lookup import deserialize_from, get_from
from .constant_initializers import Constant, Identity, Ones, Zeros
from .from_values import ValuesInitializer, is_values
from .initializer import Initializer
from .orthogonal import Orthogonal
from .random_initializers import RandomInitializer, RandomNormal, RandomUniform, TruncatedNormal
from .stft import STFT
from .variance_scaling import (GlorotNormal, GlorotUniform, HeNormal, HeUniform, LecunNormal,
                               LecunUniform, VarianceScaling, compute_fans)

_CLASSES = (Constant, Identity, Ones, Zeros, RandomNormal, RandomUniform, TruncatedNormal,
            VarianceScaling, GlorotNormal, GlorotUniform, HeNormal, HeUniform, LecunNormal,
            LecunUniform, Orthogonal, STFT)

# Keras's snake-case function names, its aliases and the class names of older versions.
zeros, ones, constant, identity = Zeros, Ones, Constant, Identity
random_uniform, random_normal, truncated_normal = RandomUniform, RandomNormal, TruncatedNormal
uniform, normal = RandomUniform, RandomNormal
variance_scaling, orthogonal = VarianceScaling, Orthogonal
glorot_uniform, glorot_normal = GlorotUniform, GlorotNormal
he_normal, he_uniform, lecun_normal, lecun_uniform = HeNormal, HeUniform, LecunNormal, LecunUniform
IdentityInitializer, OrthogonalInitializer = Identity, Orthogonal
STFTInitializer = stft = STFT

ALL_OBJECTS: dict[str, type] = {cls.__name__: cls for cls in _CLASSES}
ALL_OBJECTS.update({
    "zeros": Zeros, "zero": Zeros, "ones": Ones, "one": Ones, "constant": Constant,
    "identity": Identity, "IdentityInitializer": Identity,
    "uniform": RandomUniform, "random_uniform": RandomUniform,
    "normal": RandomNormal, "random_normal": RandomNormal,
    "truncated_normal": TruncatedNormal, "variance_scaling": VarianceScaling,
    "glorot_uniform": GlorotUniform, "glorot_normal": GlorotNormal,
    "he_normal": HeNormal, "he_uniform": HeUniform,
    "lecun_normal": LecunNormal, "lecun_uniform": LecunUniform,
    "orthogonal": Orthogonal, "OrthogonalInitializer": Orthogonal,
    "stft": STFT, "STFTInitializer": STFT,
})


def serialize(initializer: Initializer) -> dict:
    """Return the config of an initializer, as Keras 3 writes it.

    Args:
        initializer: An ``Initializer``.

    Returns:
        A dict ``{"module": "keras.initializers", "class_name", "config",
        "registered_name"}``.

    Example:

    >>> lamina.initializers.serialize(lamina.initializers.HeNormal(seed=3))["config"]
    {'seed': 3, 'input_axes': None, 'output_axes': None}
    """
    return serialize_keras_object(initializer)


def deserialize(config, custom_objects: dict | None = None) -> Any:
    """Rebuild an initializer from its config.

    Args:
        config: A dict made by :func:`serialize` (or read from a Keras file), or the name
            of an initializer class.
        custom_objects: An optional dict of name -> class for the user's own initializers.

    Returns:
        The initializer.

    Example:

    >>> lamina.initializers.deserialize(
    ...     lamina.initializers.serialize(lamina.initializers.HeNormal(seed=3))).seed
    3
    """
    return deserialize_from("initializer", config, ALL_OBJECTS, custom_objects)


def get(identifier) -> Initializer | Callable | None:
    """Return an initializer from an identifier.

    Args:
        identifier: ``None`` (returned as ``None``), a name such as
            ``"glorot_uniform"``, a config dict, an instance, an ``Initializer`` class
            (instantiated), any callable ``(shape, dtype=None) -> Tensor``, or a tensor or
            numpy array: the initial values themselves (the initializer then takes only
            their shape).

    Returns:
        The initializer (or callable), or ``None``.

    Raises:
        ValueError: If ``identifier`` names no initializer.

    Example:

    >>> lamina.initializers.get("he_normal")
    HeNormal(seed=None, input_axes=None, output_axes=None)
    """
    if identifier is None:
        return None
    if is_values(identifier):
        return ValuesInitializer(identifier)
    return get_from("initializer", identifier, ALL_OBJECTS)


register_family("keras.initializers", lambda: ALL_OBJECTS)

__all__ = ["Initializer", "RandomInitializer", "get", "serialize", "deserialize",
           "compute_fans", "ALL_OBJECTS", *(cls.__name__ for cls in _CLASSES),
           "zeros", "ones", "constant", "identity", "random_uniform", "random_normal",
           "truncated_normal", "uniform", "normal", "variance_scaling", "orthogonal",
           "glorot_uniform", "glorot_normal", "he_normal", "he_uniform", "lecun_normal",
           "lecun_uniform", "IdentityInitializer", "OrthogonalInitializer", "STFTInitializer",
           "stft"]
