"""The benchmarks, a package so that they import each other (and tests import them) under one
name, ``benchmarks.NAME``, the name mypy checks them by; each still runs as a script."""
