"""The table-side appliance: the loop that wires camera, reader, rules engine and devices together.

Modules, each with one job:

- ``motion``: tells rolling, settled and empty apart from cheap frame differences.
- ``vote``: combines the readings of the last few still frames into one trusted roll or a problem.
- ``messages``: every text the appliance says or shows, from per-language catalogues.
"""
