import lamina
from lamina import layers


def setup_function():
    lamina.backend.clear_session(free_memory=False)


def _lines(model, **kwargs):
    out = []
    model.summary(print_fn=out.append, **kwargs)
    return out


def test_sequential_summary_matches_keras3_layout():
    model = lamina.Sequential([lamina.Input((4,)), layers.Dense(1270, name="c"),
                               layers.Dense(10)], name="seq")
    lines = _lines(model)
    assert lines[0] == 'Model: "seq"'
    assert lines[1] == "┏" + "━" * 31 + "┳" + "━" * 24 + "┳" + "━" * 15 + "┓"
    assert lines[2] == "┃ Layer (type)                  ┃ Output Shape           ┃       Param # ┃"
    assert lines[4] == "│ c (Dense)                     │ (None, 1270)           │         6,350 │"
    assert lines[6].startswith("│ dense (Dense)") and lines[6].endswith("12,710 │")
    assert lines[-3:] == [" Total params: 19,060 (74.45 KB)",
                          " Trainable params: 19,060 (74.45 KB)",
                          " Non-trainable params: 0 (0.00 B)"]


def test_functional_summary_lists_inputs_and_connections():
    a, b = lamina.Input((2,), name="a"), lamina.Input((2,), name="b")
    shared = layers.Dense(3, name="shared")
    model = lamina.Model([a, b], [shared(a), shared(b)], name="f")
    text = "\n".join(_lines(model))
    assert "a (InputLayer)" in text and "Connected to" in text
    assert "a[0][0], b[0][0]" in text


def test_unbuilt_model_summary():
    model = lamina.Sequential([layers.Dense(2)], name="u")
    text = "\n".join(_lines(model))
    assert "0 (unbuilt)" in text and "│ ?" in text


def test_show_trainable_column():
    model = lamina.Sequential([lamina.Input((2,)), layers.Dense(2, trainable=False)])
    text = "\n".join(_lines(model, show_trainable=True))
    assert "Trainable" in text and " N " in text
    assert " Non-trainable params: 6 (24.00 B)" in text
