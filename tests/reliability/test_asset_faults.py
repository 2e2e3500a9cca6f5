"""Issue 23, items 6-8: vocabularies stored as ``.keras`` assets round-trip every string,
a missing or malformed asset is an error naming the file and entry, and assets are held to
the archive's inflate budget."""
import time
import warnings
import zipfile

import numpy as np
import pytest

import lamina
from lamina.layers import StringLookup, TextVectorization
from lamina.saving.archive_guard import UnsafeArchiveError
from lamina.saving.errors import CorruptFileError

ENTRY = "assets/layers/string_lookup/vocabulary.txt"
EXACT = "assets/layers/string_lookup/vocabulary.json"

# Tokens Keras's own vocabulary.txt (read back with splitlines()) cannot hold: every line
# break Python knows, and an empty token at the end of the vocabulary.
AWKWARD = ["a\nb", "c\rd", "e\r\nf", "g\u2028h", "i\x85j", "k\x0cl", "m\x0bn", "o\x1cp",
           "q\u2029r", "\ud800", "tab\there", ""]


def _saved(tmp_path, layer, name="m.keras"):
    path = str(tmp_path / name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # a model that was never built: no input
        lamina.Sequential([layer]).save(path)
    return path


def _rewritten(path, tmp_path, change):
    """A copy of the archive with ``change(entries)`` applied to its {name: bytes}."""
    with zipfile.ZipFile(path) as zf:
        entries = {n: zf.read(n) for n in zf.namelist()}
    change(entries)
    out = str(tmp_path / "changed.keras")
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in entries.items():
            if name.endswith("/"):
                zf.writestr(zipfile.ZipInfo(name), b"")
            else:
                zf.writestr(name, data)
    return out


@pytest.mark.parametrize("token", AWKWARD, ids=repr)
def test_any_token_round_trips_through_a_keras_file(tmp_path, token):
    layer = StringLookup()
    layer.adapt(["x", token, "y", token, "x", token])
    vocabulary = layer.get_vocabulary()
    assert token in vocabulary and len(vocabulary) == 4
    loaded = lamina.saving.load_model(_saved(tmp_path, layer)).layers[0]
    assert loaded.get_vocabulary() == vocabulary
    probe = np.array([token, "x", "y", "unseen"])
    np.testing.assert_array_equal(loaded(probe).numpy(), layer(probe).numpy())


def test_text_vectorization_vocabulary_with_line_breaks_round_trips(tmp_path):
    layer = TextVectorization(standardize=None, split=None)
    layer.adapt(["x\u2028y", "z", "x\u2028y", "w\nv"])
    path = str(tmp_path / "tv.keras")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lamina.Sequential([layer]).save(path)
    loaded = lamina.saving.load_model(path).layers[0]
    assert loaded.get_vocabulary() == layer.get_vocabulary() == \
        ["", "[UNK]", "x\u2028y", "z", "w\nv"]
    np.testing.assert_array_equal(loaded(["w\nv"]).numpy(), [[4]])


def test_a_plain_vocabulary_is_stored_as_keras_stores_it_and_nothing_more(tmp_path):
    layer = StringLookup()
    layer.adapt(["b", "a", "b"])
    path = _saved(tmp_path, layer)
    with zipfile.ZipFile(path) as zf:
        assert zf.read(ENTRY).decode() == "[UNK]\nb\na"
        assert EXACT not in zf.namelist()


def test_an_awkward_vocabulary_keeps_keras_s_file_and_adds_the_exact_list(tmp_path):
    layer = StringLookup()
    layer.adapt(["a\nb", "c"])
    with zipfile.ZipFile(_saved(tmp_path, layer)) as zf:
        assert zf.read(ENTRY).decode() == "[UNK]\nc\na\nb"      # what Keras would write
        assert zf.read(EXACT).decode() == '["[UNK]", "c", "a\\nb"]'


def test_a_keras_written_vocabulary_without_the_exact_list_still_loads(tmp_path):
    layer = StringLookup()
    layer.adapt(["b", "a", "b", "c"])
    path = _rewritten(_saved(tmp_path, layer), tmp_path,
                      lambda e: e.__setitem__(ENTRY, b"[UNK]\nb\nc\na\n"))  # trailing newline
    assert lamina.saving.load_model(path).layers[0].get_vocabulary() == \
        ["[UNK]", "b", "c", "a"]


def _adapted():
    layer = StringLookup()
    layer.adapt(["b", "a", "b", "c"])
    return layer


@pytest.mark.parametrize("change, reason", [
    (lambda e: e.pop(ENTRY), r"the vocabulary file is missing$"),
    (lambda e: (e.pop(ENTRY), e.__setitem__(ENTRY + "/", b"")),
     r"the vocabulary file is missing"),
    (lambda e: e.__setitem__(ENTRY, b"[UNK]\nb\nb\na"), r"the vocabulary repeats the entries \['b'\]"),
    (lambda e: e.__setitem__(ENTRY, b"[UNK]\nb\na"),
     r"the layer's config declares 4 vocabulary entries; the file holds 3"),
    (lambda e: e.__setitem__(ENTRY, b"[UNK]\n\xff\xfe\na"), r"not UTF-8 text"),
    (lambda e: e.__setitem__(EXACT, b'{"a": 1}'), r"expected a JSON list of strings; "
                                                  r"received dict"),
    (lambda e: e.__setitem__(EXACT, b'["[UNK]", "b"'), r"not a JSON list of strings"),
], ids=["missing", "folder", "duplicates", "count", "not-utf8", "json-dict", "json-cut"])
def test_a_missing_or_malformed_asset_is_an_error_naming_file_and_entry(tmp_path, change,
                                                                        reason):
    path = _rewritten(_saved(tmp_path, _adapted()), tmp_path, change)
    with pytest.raises(CorruptFileError, match=r"changed\.keras': entry 'assets/layers/"
                                               r"string_lookup/vocabulary\.(txt|json)' \(an "
                                               r"asset of 'layers/string_lookup'\): " + reason):
        lamina.saving.load_model(path)


def test_an_integer_vocabulary_with_a_word_is_an_error(tmp_path):
    layer = lamina.layers.IntegerLookup()
    layer.adapt([3, 1, 3, 2])
    path = _rewritten(_saved(tmp_path, layer), tmp_path, lambda e: e.__setitem__(
        "assets/layers/integer_lookup/vocabulary.txt", b"-1\n3\nfoo\n1"))
    with pytest.raises(CorruptFileError, match=r"integer vocabulary holds a non-integer"):
        lamina.saving.load_model(path)


def test_a_vocabulary_that_inflates_like_a_zip_bomb_is_refused_before_it_is_read(tmp_path):
    """Issue 23 item 8: 193 KB of .keras whose vocabulary inflates to 200 MB loaded 100M
    entries (2.5 GB, 109 s). Here 24 MB of "x\\n" lines: refused by its ratio, at once."""
    bomb = b"[UNK]\n" + b"x\n" * (12 << 20)
    path = _rewritten(_saved(tmp_path, _adapted()), tmp_path,
                      lambda e: e.__setitem__(ENTRY, bomb))
    started = time.perf_counter()
    with pytest.raises(UnsafeArchiveError, match=r"refusing entry 'assets/layers/string_lookup/"
                                                 r"vocabulary\.txt': it inflates \d+ times"):
        lamina.saving.load_model(path)
    assert time.perf_counter() - started < 5
