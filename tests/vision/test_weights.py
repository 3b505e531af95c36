"""The shipped networks are loaded once, refuse a missing or broken file by name, and answer the
same from several threads at once."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest

from pi_reader.vision import faces, weights


def test_a_missing_weights_file_is_weights_missing_naming_it(tmp_path: Path):
    path = tmp_path / "face-classifier.onnx"
    with pytest.raises(weights.WeightsMissing, match=r"face classifier.*face-classifier\.onnx"):
        weights.Network(path, "face classifier")


@pytest.mark.parametrize("content", [b"", b"not a network", None])
def test_a_broken_weights_file_is_weights_unreadable_an_os_error_the_cli_reports(
    tmp_path: Path, content: bytes | None
):
    path = tmp_path / "dice-detector.onnx"
    shipped = weights.shipped("dice-detector.onnx").read_bytes()
    path.write_bytes(shipped[: len(shipped) // 3] if content is None else content)
    with pytest.raises(weights.WeightsUnreadable, match=r"dice detector.*reinstall") as caught:
        weights.Network(path, "dice detector")
    assert isinstance(caught.value, OSError)


def test_one_network_answers_alike_from_several_threads():
    network = weights.Network(weights.shipped(faces.MODEL_FILE), "face classifier")
    rng = np.random.default_rng(1)
    blobs = [rng.normal(size=(3, 3, faces.INPUT_PX, faces.INPUT_PX)).astype(np.float32)
             for _ in range(4)]
    alone = [network.forward(blob) for blob in blobs]
    together: list[list[np.ndarray]] = [[] for _ in blobs]

    def read(index: int) -> None:
        for _ in range(10):
            together[index].append(network.forward(blobs[index]))

    threads = [threading.Thread(target=read, args=(i,)) for i in range(len(blobs))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for index, answers in enumerate(together):
        assert all(np.array_equal(answer, alone[index]) for answer in answers)
