"""The Qwixx rules engine: sheets, rows, turns, legality, scoring and the game log.

Pure Python with no hardware and no I/O beyond reading and writing the game log.
"""
