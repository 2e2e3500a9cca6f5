"""lamina.utils.plot_history: one panel per quantity, train vs validation, saved and
returned; comparison of runs; errors; the vgg_digits example without matplotlib."""
import importlib.util
import os
import sys

import pytest

pytest.importorskip("matplotlib")

from lamina.callbacks import History
from lamina.utils import plot_history

LOGS = {"loss": [1.0, 0.6, 0.4], "accuracy": [0.5, 0.7, 0.8], "val_loss": [1.1, 0.8, 0.7],
        "val_accuracy": [0.4, 0.6, 0.65], "learning_rate": [0.01, 0.01, 0.005]}


def a_history(logs=LOGS, first_epoch=0):
    history = History()
    for epoch in range(len(next(iter(logs.values())))):
        history.on_epoch_end(first_epoch + epoch, {k: v[epoch] for k, v in logs.items()})
    return history


def lines(ax):
    return {line.get_label(): (list(line.get_xdata()), list(line.get_ydata()))
            for line in ax.get_lines()}


def test_one_panel_per_quantity_train_and_validation(tmp_path):
    path = tmp_path / "history.png"
    figure = plot_history(a_history(), to_file=str(path))
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    axes = [ax for ax in figure.axes if ax.get_visible()]
    assert [ax.get_title() for ax in axes] == ["loss", "accuracy", "learning rate"]
    loss = lines(axes[0])
    assert loss == {"train": ([1, 2, 3], [1.0, 0.6, 0.4]),
                    "validation": ([1, 2, 3], [1.1, 0.8, 0.7])}
    assert lines(axes[2]) == {"train": ([1, 2, 3], [0.01, 0.01, 0.005])}
    assert axes[0].get_xlabel() == "epoch"


def test_formats_dict_input_epochs_and_metric_choice(tmp_path):
    for suffix, magic in (("svg", b"<?xml"), ("pdf", b"%PDF-")):
        plot_history(LOGS, to_file=str(tmp_path / f"h.{suffix}"))
        assert (tmp_path / f"h.{suffix}").read_bytes()[:5] == magic
    figure = plot_history(a_history(first_epoch=4), to_file=None, metrics=["accuracy"])
    axes = [ax for ax in figure.axes if ax.get_visible()]
    assert len(axes) == 1 and lines(axes[0])["train"][0] == [5, 6, 7]   # initial_epoch=4
    figure = plot_history({"loss": [3.0, 2.0, 1.0, 0.5], "a": [1, 2, 3, 4], "b": [1] * 4,
                           "c": [2] * 4}, to_file=None)
    assert sum(ax.get_visible() for ax in figure.axes) == 4 and len(figure.axes) == 6


def test_comparison_of_runs(tmp_path):
    other = {k: [v * 2 for v in values] for k, values in LOGS.items()}
    figure = plot_history({"adam": a_history(), "sgd": other}, to_file=None,
                          title="optimizers")
    loss = lines(figure.axes[0])
    assert set(loss) == {"adam train", "adam validation", "sgd train", "sgd validation"}
    assert loss["sgd validation"][1] == [2.2, 1.6, 1.4]
    assert figure._suptitle.get_text() == "optimizers"


def test_errors():
    with pytest.raises(ValueError, match=r"'to_file' must end in .png, .svg or .pdf; "
                                         r"received 'h.jpg'"):
        plot_history(LOGS, to_file="h.jpg")
    with pytest.raises(TypeError, match="history must be a History .* received int"):
        plot_history(3, to_file=None)
    with pytest.raises(TypeError, match="run 'b' must be a History"):
        plot_history({"a": LOGS, "b": {"loss": 3}}, to_file=None)
    with pytest.raises(ValueError, match=r"'metrics' names \['auc'\], which the history "
                                         r"does not have"):
        plot_history(LOGS, to_file=None, metrics=["auc"])
    with pytest.raises(ValueError, match="the history is empty"):
        plot_history(History(), to_file=None)


def test_missing_matplotlib_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    with pytest.raises(ImportError, match=r"plot_history needs the optional dependency "
                                          r"'matplotlib'.*pip install lamina\[plots\]"):
        plot_history(LOGS, to_file=None)


def test_vgg_example_says_how_to_get_the_plot_without_matplotlib(tmp_path, monkeypatch,
                                                                 capsys):
    path = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "vgg_digits.py")
    spec = importlib.util.spec_from_file_location("vgg_digits_example", path)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    example.plot_training(a_history(), str(tmp_path / "h.png"))
    assert "training curves written to" in capsys.readouterr().out
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    example.plot_training(a_history(), str(tmp_path / "none.png"))
    out = capsys.readouterr().out
    assert "no training plot:" in out and "pip install lamina[plots]" in out
    assert not (tmp_path / "none.png").exists()
