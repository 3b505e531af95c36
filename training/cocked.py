"""When a generated die counts as cocked: one rule for the labels (``render_scenes.py``) and for
measuring the throws inside Blender (``measure_throws.py``), so plain Python, no imports."""

# A die leaning further than this from flat is cocked (the rules reroll it): one half on a coin
# leans asin(1.8 / 16 mm) = 6.5 degrees and is still read flat; one on a pencil leans 20 or more.
MAX_LEAN_DEG = 8.0
