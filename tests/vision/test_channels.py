"""The brightest and darkest channel of each pixel are numpy's max and min over the channels."""

from __future__ import annotations

import numpy as np
import pytest

from pi_reader.vision.channels import brightest_channel, darkest_channel


@pytest.mark.parametrize("shape", [(0, 3), (1849, 3), (43, 41, 3)])
def test_each_pixel_gives_its_largest_and_smallest_channel(shape):
    pixels = np.random.default_rng(7).integers(0, 256, shape, dtype=np.uint8)
    assert np.array_equal(brightest_channel(pixels), pixels.max(axis=-1, initial=0))
    assert np.array_equal(darkest_channel(pixels), pixels.min(axis=-1, initial=255))
    assert brightest_channel(pixels).dtype == np.uint8
