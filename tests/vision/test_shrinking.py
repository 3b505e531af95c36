"""Shrinking by whole blocks: the mean of each block, under a factor's pixels cut off the right
and bottom, never a factor larger than the image."""

from __future__ import annotations

import numpy as np

from pi_reader.vision.shrinking import blocks_averaged


def test_each_output_pixel_is_the_mean_of_its_block():
    image = np.random.default_rng(2).integers(0, 256, (31, 47, 3), dtype=np.uint8)
    small = blocks_averaged(image, 4)
    assert small.shape == (7, 11, 3)  # 28 x 44 of the image is used
    for y, x in ((0, 0), (6, 10), (3, 5)):
        block = image[4 * y:4 * y + 4, 4 * x:4 * x + 4].reshape(-1, 3).mean(axis=0)
        assert np.abs(small[y, x].astype(float) - block).max() <= 0.5


def test_a_factor_of_one_is_the_image_itself_and_a_factor_over_its_side_is_held_to_it():
    image = np.zeros((5, 9, 3), np.uint8)
    assert blocks_averaged(image, 1) is image
    assert blocks_averaged(image, 0) is image
    assert blocks_averaged(image, 12).shape == (1, 1, 3)
