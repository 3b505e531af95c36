"""Where a die's pips lie on its faces, and which values a partly hidden face still fits.

Shared by the renderer (``blender_scene.py``, run inside Blender, which imports it beside
itself) and the labeller (``render_scenes.py``): the renderer says which of a top face's nine
places the camera sees, the labeller calls the face unreadable when the places in view fit
more than one value.
"""

from __future__ import annotations

from collections.abc import Sequence

Cell = tuple[int, int]  # (across, down) on the face's 3 x 3 grid of places, each -1, 0 or 1

# The pips of each value along the face's own axes (a 2, 3 or 6 may lie either way round on
# another die; the quarter turn covers that).
PIP_CELLS: dict[int, tuple[Cell, ...]] = {
    1: ((0, 0),),
    2: ((-1, -1), (1, 1)),
    3: ((-1, -1), (0, 0), (1, 1)),
    4: ((-1, -1), (1, -1), (-1, 1), (1, 1)),
    5: ((-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)),
    6: ((-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)),
}
# Every place a pip may be, in the order a face's places are given: row by row.
PLACES: tuple[Cell, ...] = tuple((across, down) for down in (-1, 0, 1)
                                  for across in (-1, 0, 1))


def _turned(cells: Sequence[Cell]) -> frozenset[Cell]:
    return frozenset((-down, across) for across, down in cells)


def values_fitting(value: int, seen: Sequence[bool]) -> set[int]:
    """The values whose pips, either way round, agree with a face showing ``value`` at every
    place in ``seen`` (one flag per place of PLACES): ``{value}`` when the face is told."""
    if len(seen) != len(PLACES):
        raise ValueError(f"a face has {len(PLACES)} places, got {len(seen)} flags")
    shown = frozenset(PIP_CELLS[value])
    in_view = [place for place, flag in zip(PLACES, seen, strict=True) if flag]
    fitting = set()
    for other, cells in PIP_CELLS.items():
        for layout in (frozenset(cells), _turned(cells)):
            if all((place in layout) == (place in shown) for place in in_view):
                fitting.add(other)
    return fitting
