"""Reading Qwixx dice from a camera frame: find the dice, name their colours, read their pips.

Pure functions over numpy BGR images; nothing here knows about cameras or other devices.
"""
