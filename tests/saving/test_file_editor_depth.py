"""KerasFileEditor walks a file's groups with an explicit stack (issue 23, item 10): a file
nested 3000 groups deep is refused with a typed error instead of a RecursionError, a group
linked twice (a cycle or a shared group) is refused, and a deep file within the limit is
read, summarized, compared and saved back in its order."""
import numpy as np
import pytest

from lamina.saving import KerasFileEditor
from lamina.saving.errors import CorruptFileError
from lamina.saving.file_editor import MAX_GROUP_DEPTH

h5py = pytest.importorskip("h5py")


def _nested(path, depth: int):
    with h5py.File(path, "w") as f:
        group = f
        for level in range(depth):
            group = group.create_group(f"g{level}")
        group.create_group("vars").create_dataset("0", data=np.arange(3.0))
    return path


def test_3000_nested_groups_are_refused_not_a_recursion_error(tmp_path):
    path = _nested(str(tmp_path / "deep.weights.h5"), 3000)
    with pytest.raises(CorruptFileError, match=r"deep\.weights\.h5': the group /g0/g1/.*/g512 "
                                               r"is nested more than 512 levels deep"):
        KerasFileEditor(path)


def test_a_deep_file_within_the_limit_is_read_and_written_back(tmp_path, capsys):
    depth = MAX_GROUP_DEPTH - 1                 # with "vars": exactly the limit
    path = _nested(str(tmp_path / "ok.weights.h5"), depth)
    editor = KerasFileEditor(path)
    node = editor.weights_dict
    for level in range(depth):
        node = node[f"g{level}"]
    np.testing.assert_array_equal(node["0"], [0.0, 1.0, 2.0])
    editor.summary()
    assert "shape=(3,), dtype=float64" in capsys.readouterr().out
    editor.save(str(tmp_path / "again.weights.h5"))
    again = KerasFileEditor(str(tmp_path / "again.weights.h5"))
    node = again.weights_dict
    for level in range(depth):
        node = node[f"g{level}"]
    np.testing.assert_array_equal(node["0"], [0.0, 1.0, 2.0])


def test_keys_keep_the_file_order_with_vars_merged_in_place(tmp_path):
    path = str(tmp_path / "order.weights.h5")
    with h5py.File(path, "w") as f:
        f.create_group("a").create_group("vars").create_dataset("0", data=[1.0])
        f.create_group("empty")
        f.create_group("vars").create_dataset("0", data=[2.0])
        f.create_group("w").create_group("vars").create_dataset("0", data=[3.0])
        f["a"].attrs["name"] = "dense"
    editor = KerasFileEditor(path)
    assert list(editor.weights_dict) == ["a", "0", "w"]
    assert editor.object_metadata == {"/a": {"name": "dense"}}


@pytest.mark.parametrize("link", ["cycle", "shared"])
def test_a_group_linked_twice_is_refused(tmp_path, link):
    path = str(tmp_path / "linked.weights.h5")
    with h5py.File(path, "w") as f:
        inner = f.create_group("a").create_group("b")
        inner.create_group("vars").create_dataset("0", data=[1.0])
        if link == "cycle":
            inner["up"] = f["a"]                  # a hard link back to an ancestor
        else:
            f["c"] = inner                        # the same group at two paths
    with pytest.raises(CorruptFileError, match=r"linked\.weights\.h5': the group .* is linked "
                                               r"more than once in the file; expected a tree"):
        KerasFileEditor(path)
