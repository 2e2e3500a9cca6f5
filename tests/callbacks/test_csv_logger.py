"""CSVLogger: header, sorted columns, NA, append, separator, flushing."""
import csv

import pytest

from lamina.callbacks import CSVLogger, LambdaCallback

from .tiny import LOSSES, VAL_LOSSES, data, fit, one_weight_model


def read_rows(path, separator=","):
    with open(path, newline="") as f:
        return list(csv.reader(f, delimiter=separator))


def test_rows_of_epoch_logs(tmp_path, floatx):
    path = tmp_path / "log.csv"
    fit(one_weight_model(), 3, [CSVLogger(str(path))], validate=True)
    rows = read_rows(path)
    assert rows[0] == ["epoch", "loss", "val_loss"]
    assert [int(r[0]) for r in rows[1:]] == [0, 1, 2]
    assert [float(r[1]) for r in rows[1:]] == pytest.approx(LOSSES[:3], rel=1e-5)
    assert [float(r[2]) for r in rows[1:]] == pytest.approx(VAL_LOSSES[:3], rel=1e-4)
    assert path.read_bytes().startswith(b"epoch,loss,val_loss\r\n0,1.0,0.09")  # Keras's csv


def test_missing_values_are_na_and_val_columns_are_added(tmp_path):
    # validation every 2nd epoch: epoch 0 has no val_loss, the column exists anyway
    path = tmp_path / "log.csv"
    x, y = data()
    model = one_weight_model()
    model.fit(x, y, epochs=2, verbose=0, validation_data=(x, y), validation_freq=2,
              callbacks=[CSVLogger(path)])
    rows = read_rows(path)
    assert rows[0] == ["epoch", "loss", "val_loss"]
    assert rows[1][2] == "NA" and rows[2][2] != "NA"


def test_columns_are_sorted_and_lists_are_quoted(tmp_path):
    path = tmp_path / "log.csv"
    logger = CSVLogger(path)
    logger.on_train_begin()
    logger.on_epoch_end(0, {"zeta": 2.5, "alpha": "text", "val_vec": [1, 2]})
    logger.on_epoch_end(1, {"alpha": "more"})
    logger.on_train_end()
    assert path.read_text().splitlines() == [
        "epoch,alpha,val_vec,zeta", '0,text,"""[1, 2]""",2.5', "1,more,NA,NA"]


def test_append_continues_without_a_second_header(tmp_path):
    path = tmp_path / "log.csv"
    model = one_weight_model()
    fit(model, 2, [CSVLogger(path)])
    fit(model, 1, [CSVLogger(path, append=True)])
    rows = read_rows(path)
    assert [r[0] for r in rows] == ["epoch", "0", "1", "0"]
    assert float(rows[3][1]) == pytest.approx(LOSSES[2], rel=1e-5)
    fit(model, 1, [CSVLogger(path)])                       # append=False starts over
    assert [r[0] for r in read_rows(path)] == ["epoch", "0"]


def test_separator(tmp_path):
    path = tmp_path / "log.tsv"
    fit(one_weight_model(), 1, [CSVLogger(path, separator="\t")], validate=True)
    assert path.read_text().splitlines()[0] == "epoch\tloss\tval_loss"


def test_each_row_is_flushed_at_its_epoch_end(tmp_path):
    path = tmp_path / "log.csv"
    seen = []
    reader = LambdaCallback(on_epoch_end=lambda epoch, logs: seen.append(len(read_rows(path))))
    fit(one_weight_model(), 3, [CSVLogger(path), reader])
    assert seen == [2, 3, 4]                       # header + one row per finished epoch


def test_bad_arguments():
    with pytest.raises(ValueError, match="CSVLogger: argument 'separator' must be a "
                                         "1-character string; received ', '"):
        CSVLogger("log.csv", separator=", ")
    with pytest.raises(TypeError, match="CSVLogger: argument 'filename' must be a string "
                                        "or a path; received None"):
        CSVLogger(None)
