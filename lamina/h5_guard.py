"""Every HDF5 file Lamina reads is checked here first: its data must all be inside it.

HDF5 lets a file point elsewhere: a dataset's *external storage* (raw bytes read from any
file named in it), *external links* (an object of another HDF5 file), *soft links* (a path,
which may go through such a link) and *virtual datasets* (data mapped from other files).
Loaded as weights, any of these copies another file of the machine into a model, and a
served model's predictions can leak it. :func:`check_contained` walks the open file once
(every link of every group) and refuses all of them, as Keras 3 does ("Not allowed: H5
file with external Dataset"); Lamina and Keras write none of them.

Datasets Lamina writes carry HDF5's Fletcher-32 checksum (:func:`create_checked`; standard
HDF5 that h5py and Keras read). :func:`read_dataset` turns a failed checksum into
:class:`H5ChecksumError` naming the file and the dataset, where h5py says only "filter
returned failure during read". Scalar datasets cannot be chunked, so they
carry no checksum.

This module sits at the package root (not in ``saving/``) because the exported-graph reader
in ``lamina/graph`` uses it too and must not import the saving package.
"""
from __future__ import annotations

from .errors import LaminaError

class H5FileError(LaminaError, ValueError):
    """An HDF5 file cannot be read safely (see the subclasses)."""


class UnsafeH5FileError(H5FileError):
    """The file refers to data outside itself: external storage or links, soft links,
    virtual datasets."""


class H5ChecksumError(H5FileError):
    """A dataset's Fletcher-32 checksum does not match its bytes: the file was damaged."""


def create_checked(group, name: str, data):
    """``group.create_dataset(name, data=data)`` with the Fletcher-32 checksum filter when
    the data can take one (a filter needs chunks, which a scalar cannot have)."""
    checked = getattr(data, "ndim", 1) > 0
    return group.create_dataset(name, data=data, fletcher32=checked)


class H5Index:
    """What :func:`check_contained`'s walk opened: every group and dataset by its absolute
    path, and each group's link names in the file's order, so a reader need not open them
    again (h5py resolves each path anew: a 3000-layer model's weights were opened twice)."""

    def __init__(self):
        self.objects: dict = {}
        self.links: dict = {}

    def get(self, path: str):
        """The object at ``path`` (relative to the root or absolute), or None."""
        return self.objects.get("/" + path.strip("/"))

    def children(self, group) -> list:
        """``(name, object)`` of ``group``'s links, in the file's order."""
        base = group.name.rstrip("/")
        if group.name not in self.links:    # a group hard-linked twice, walked by its other
            return [(key, group[key]) for key in group]      # name
        return [(key, self.objects[f"{base}/{key}"]) for key in self.links[group.name]]


def check_contained(f, filepath) -> H5Index:
    """Raise :class:`UnsafeH5FileError` unless every object of the open h5py file ``f`` is
    reached by hard links and every dataset keeps its data inside the file. A file too
    damaged to walk raises :class:`H5FileError` naming it. Returns the walk's index."""
    try:
        return _walk(f, filepath)
    except LaminaError:
        raise
    except Exception as exc:            # h5py's OSError, KeyError, RuntimeError, TypeError
        raise H5FileError(f"'{filepath}': the file is damaged: its groups cannot be read "
                          f"({type(exc).__name__}: {exc})") from None


def _walk(f, filepath) -> H5Index:
    import h5py
    from h5py import h5i, h5o
    odd = _odd_links(f)
    if odd:
        _refuse_link(f, odd[0], filepath)
    readonly = f.mode == "r"
    index = H5Index()
    index.objects["/"] = f
    seen, stack = set(), [f]
    while stack:
        group = stack.pop()
        if group.id in seen:                # a group hard-linked twice: walk it once
            continue
        seen.add(group.id)
        keys = list(group)                  # link names only: nothing is resolved yet
        index.links[group.name] = keys
        base = group.name.rstrip("/")
        for key in keys:                    # opened by its parent: no path walked anew
            where = f"{base}/{key}"
            oid = h5o.open(group.id, key.encode("utf-8"))
            if h5i.get_type(oid) == h5i.GROUP:
                obj = h5py.Group(oid)
                stack.append(obj)
            elif h5i.get_type(oid) == h5i.DATASET:
                obj = h5py.Dataset(oid, readonly=readonly)
                _check_dataset(obj, where, filepath)
            else:                           # a committed datatype
                obj = h5py.Datatype(oid)
            index.objects[where] = obj
    return index


def _odd_links(f) -> list:
    """The absolute paths of the links that are not hard links (the first one found: HDF5
    visits every link in C, once per object, following hard links only)."""
    from h5py import h5l
    odd: list = []

    def look(name, info):
        if info.type != h5l.TYPE_HARD:
            odd.append("/" + name.decode("utf-8", "replace").lstrip("/"))
            return 1                        # not None: the visit stops here
        return None

    f.id.links.visit(look, info=True)
    return odd


def _refuse_link(f, where: str, filepath) -> None:
    import h5py
    group, _, key = where.rpartition("/")
    try:
        link = f[group or "/"].get(key, getlink=True)
    except TypeError:                       # h5py's "Unknown link type": user-defined
        link = None
    entry = f"the link '{where}'"
    if isinstance(link, h5py.ExternalLink):
        _refuse(filepath, entry, f"is an external link (h5py.ExternalLink) to "
                                 f"'{link.path}' in the file '{link.filename}'")
    if isinstance(link, h5py.SoftLink):
        _refuse(filepath, entry, f"is a soft link (h5py.SoftLink) to '{link.path}'")
    _refuse(filepath, entry, "is a user-defined HDF5 link")


def _check_dataset(dataset, where: str, filepath) -> None:
    """External storage and virtual datasets are the two ways HDF5 keeps a dataset's data
    outside its file; compact, contiguous and chunked data is inside it."""
    entry = f"the dataset '{where}'"
    if dataset.is_virtual:
        _refuse(filepath, entry, "is a virtual dataset (its data is mapped from other "
                                 "files)")
    if dataset.external:
        files = ", ".join(repr(_text(name)) for name, _, _ in dataset.external)
        _refuse(filepath, entry, f"stores its data in another file (HDF5 external storage: "
                                 f"{files})")


def _text(value) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def _refuse(filepath, entry: str, what: str) -> None:
    raise UnsafeH5FileError(
        f"'{filepath}': {entry} {what}. A model file must hold its "
        f"data itself (like Keras 3: 'Not allowed: H5 file with external Dataset'); Lamina "
        f"refuses HDF5 external storage, external and soft links and virtual datasets, "
        f"which would read other files of this machine into the model")


def read_dataset(dataset, filepath, as_text: bool = False):
    """``dataset[()]`` (``.asstr()[()]`` with ``as_text``); a failed read, a failed
    Fletcher-32 checksum above all, raises an error naming the file and the dataset."""
    try:
        return dataset.asstr()[()] if as_text else dataset[()]
    except Exception as exc:            # OSError from HDF5's filter pipeline, mostly
        if getattr(dataset, "fletcher32", False):
            raise H5ChecksumError(
                f"'{filepath}': the dataset '{dataset.name}' fails its Fletcher-32 checksum:"
                f" its bytes changed after it was written (a damaged disk or copy); "
                f"restore the file from a good copy or save it again") from None
        raise H5FileError(f"'{filepath}': cannot read the dataset '{dataset.name}': the "
                          f"file is damaged ({type(exc).__name__}: {exc})") from None
