"""The training scripts, a package as they import each other (``training.NAME``): it also tells
type checkers that ``training.splits`` is ``splits.py``, not the manifests' folder ``splits/``."""
