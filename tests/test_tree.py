"""lamina.tree against Keras 3.15.1's keras.tree (the expected values were printed by
Keras with the same inputs)."""
import collections

import pytest

from lamina import tree

P = collections.namedtuple("P", "a b")


def _structure():
    return {"b": [1, (2, None)], "a": P(3, {"z": 4, "y": 5})}


def test_flatten_and_paths_follow_sorted_keys():
    s = _structure()
    assert tree.flatten(s) == [3, 5, 4, 1, 2, None]
    assert tree.flatten_with_path(s) == [
        (("a", 0), 3), (("a", 1, "y"), 5), (("a", 1, "z"), 4), (("b", 0), 1),
        (("b", 1, 0), 2), (("b", 1, 1), None)]
    assert tree.flatten(None) == [None] and tree.flatten({}) == []
    assert tree.flatten_with_path(7) == [((), 7)]


def test_is_nested():
    assert [tree.is_nested(x) for x in (None, P(1, 2), {}, 3, [1])] == [
        False, True, True, False, True]


def test_map_structure_keeps_types_and_key_order():
    got = tree.map_structure(lambda x: None if x is None else x * 10, _structure())
    assert got == {"b": [10, (20, None)], "a": P(30, {"z": 40, "y": 50})}
    assert list(got) == ["b", "a"] and isinstance(got["a"], P)
    assert tree.map_structure(lambda x, y: x + y, [1, (2, 3)], [10, (20, 30)]) == \
        [11, (22, 33)]


def test_map_structure_none_is_leaf_false_skips_none():
    assert tree.map_structure(lambda x: x * 10, [1, None], none_is_leaf=False) == [10, None]
    calls = []
    tree.map_structure(calls.append, [1, None])
    assert calls == [1, None]


@pytest.mark.parametrize("a,b,match", [
    ([1, 2], (1, 2), r"expected an instance of list, got \(1, 2\)"),
    ([1, [2]], [1, 2], r"expected an instance of list, got 2"),
    ({"a": 1}, {"b": 1}, r"dictionary keys \['a'\] != \['b'\]"),
    ([1, 2], [1, 2, 3], r"a list of 2 items, got one of 3"),
])
def test_mismatched_structures_are_refused(a, b, match):
    with pytest.raises(ValueError, match="Structures don't have the same nested structure: "
                                         + match):
        tree.assert_same_structure(a, b)
    with pytest.raises(ValueError, match=match):
        tree.map_structure(lambda x, y: x, a, b)


def test_assert_same_structure_passes_and_warns_on_check_types():
    tree.assert_same_structure({"a": [1, (2,)]}, {"a": [5, (6,)]})
    with pytest.warns(DeprecationWarning, match="`check_types` argument is deprecated"):
        tree.assert_same_structure([1], [2], check_types=True)


def test_map_structure_needs_a_structure():
    with pytest.raises(ValueError, match="Must provide at least one structure"):
        tree.map_structure(lambda x: x)
    with pytest.raises(ValueError, match="Must provide at least one structure"):
        tree.map_structure_up_to([1], lambda x: x)


def test_pack_sequence_as():
    assert tree.pack_sequence_as(_structure(), list(range(6))) == {
        "b": [3, (4, 5)], "a": P(0, {"z": 2, "y": 1})}
    with pytest.raises(ValueError, match="too few leaves: the structure has 2, "
                                         "flat_sequence has 1"):
        tree.pack_sequence_as([1, 2], [1])
    with pytest.raises(ValueError, match="too many leaves: the structure has 2, "
                                         "flat_sequence has 3"):
        tree.pack_sequence_as([1, 2], [1, 2, 3])


def test_lists_to_tuples_and_shape_structure():
    assert tree.lists_to_tuples([1, [2, [3]], {"a": [4]}]) == (1, (2, (3,)), {"a": (4,)})
    assert tree.map_shape_structure(lambda s: tuple(s) + (9,),
                                    {"x": (None, 3), "y": [[2], [4, 5]]}) == \
        {"x": (None, 3, 9), "y": [(2, 9), (4, 5, 9)]}


def test_map_structure_up_to():
    got = tree.map_structure_up_to([1, {"a": 2}], lambda x, y: (x, y),
                                   [[1, 2], {"a": 3}], [5, {"a": 6}])
    assert got == [([1, 2], 5), {"a": (3, 6)}]


def test_traverse_top_down_and_bottom_up():
    assert tree.traverse(lambda x: tree.MAP_TO_NONE if x == 2 else None, [1, [2, 3]]) == \
        [1, [None, 3]]
    assert tree.traverse(lambda x: "L" if x == [2, 3] else None, [1, [2, 3]]) == [1, "L"]
    assert tree.traverse(lambda x: sum(x) if isinstance(x, list) else None, [1, [2, 3]],
                         top_down=False) == 6
    seen = []
    tree.traverse(lambda x: seen.append(x), [1, [2]])
    assert seen == [[1, [2]], 1, [2], 2]


def test_assert_same_paths():
    tree.assert_same_paths([1, 2], (3, 4))
    with pytest.raises(ValueError) as info:
        tree.assert_same_paths({"a": 1, "b": [1]}, {"a": 2, "c": [3]})
    assert str(info.value) == ("`a` and `b` don't have the same paths.\nPaths in `a` "
                               "missing in `b`:\n{('b', 0)}\nPaths in `b` missing in `a`:\n"
                               "{('c', 0)}")
