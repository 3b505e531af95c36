"""pi-reader: a table-side Qwixx appliance on a Raspberry Pi.

The package is layered so that imports flow one way:

* ``pi_reader.rules``   the Qwixx rules engine and the game log (pure, no I/O beyond the log).
* ``pi_reader.vision``  reading dice from a frame (pure functions over numpy images).
* ``pi_reader.devices`` camera, speaker, display, LEDs and buttons, each real and fake.
* ``pi_reader.players`` computer players on top of the rules engine.
* ``pi_reader.appliance`` wires the above together into the table-side loop.
* ``pi_reader.cli``     the ``pi-reader`` command line.

``rules`` and ``vision`` never import ``devices`` or ``appliance``.
"""

__version__ = "0.1.0"
