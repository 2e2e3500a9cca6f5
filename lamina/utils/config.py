"""Keras's ``keras.utils.Config``: a dict of named values, also readable and writable as
attributes, that can be frozen and written as JSON."""
from __future__ import annotations

import difflib
import json

_OWN = ("_config", "_frozen")


class Config:
    """>>> config = Config(learning_rate=0.1)
    >>> config.momentum = 0.9; config["seed"] = 1
    >>> config.freeze()     # from now on any change raises ValueError
    """

    def __init__(self, **kwargs):
        object.__setattr__(self, "_config", dict(kwargs))
        object.__setattr__(self, "_frozen", False)

    @property
    def frozen(self) -> bool:
        return self._frozen

    def freeze(self) -> None:
        object.__setattr__(self, "_frozen", True)

    def unfreeze(self) -> None:
        object.__setattr__(self, "_frozen", False)

    def _raise_if_frozen(self) -> None:
        if self._frozen:
            raise ValueError("Cannot mutate attribute(s) because the config is frozen.")

    def as_dict(self) -> dict:
        return dict(self._config)

    def to_json(self) -> str:
        return json.dumps(self._config)

    def keys(self):
        return self._config.keys()

    def values(self):
        return self._config.values()

    def items(self):
        return self._config.items()

    def get(self, keyname, value=None):
        return self._config.get(keyname, value)

    def pop(self, *args):
        self._raise_if_frozen()
        return self._config.pop(*args)

    def update(self, *args, **kwargs):
        self._raise_if_frozen()
        self._config.update(*args, **kwargs)

    def __setattr__(self, name, value):
        if name in _OWN or hasattr(type(self), name):
            raise AttributeError(f"Config: '{name}' is a method or property of Config and "
                                 f"cannot be set; use config[{name!r}] = ...")
        self._raise_if_frozen()
        self._config[name] = value

    def __getattr__(self, name):
        if name.startswith("__") or name in _OWN:
            raise AttributeError(name)
        config = object.__getattribute__(self, "_config")
        if name in config:
            return config[name]
        msg = f"Unknown attribute: '{name}'."
        closest = difflib.get_close_matches(name, list(config), n=1, cutoff=0.7)
        if closest:
            msg += f" Did you mean '{closest[0]}'?"
        raise AttributeError(msg)

    def __setitem__(self, key, item):
        self._raise_if_frozen()
        self._config[key] = item

    def __getitem__(self, key):
        return self._config[key]

    def __delitem__(self, key):
        self._raise_if_frozen()
        del self._config[key]

    def __contains__(self, item) -> bool:
        return item in self._config

    def __iter__(self):
        return iter(sorted(self._config))

    def __len__(self) -> int:
        return len(self._config)

    def __repr__(self) -> str:
        return f"<Config {self._config}>"
