"""The local web app: the table on a screen, every sheet on its player's phone, a setup page.

Where it sits: cli → web → appliance → {players, vision, devices, rules}. The web app is one more
way into the appliance, beside the buttons and the terminal, and never a second copy of the
game: it implements the appliance's :class:`~pi_reader.appliance.events.Listener` (changes out)
and sends entries back as jobs the loop runs between frames (``Appliance.submit``). Nothing
below it imports it; ``pi-reader run --web`` (the cli) wires it in.

Modules, each with one job:

- ``view``: the table as one JSON snapshot, built in the loop's thread from the game's answers.
- ``hub``: the listener; numbers the snapshots, keeps a short history, feeds each page's queue.
- ``seats``: a random token per seat and game, kept beside the game log for restarts.
- ``server``: aiohttp routes, validation, tokens, bounds; runs in its own thread and loop.
- ``setup``: preview, live calibration, doctor and new game for the setup page (behind a PIN).
- ``pictures``: JPEGs of frames with the dice drawn, QR codes of the join links.
- ``address``: the address to print and put in the join links.
- ``static/``: the pages (HTML, one stylesheet, plain JavaScript; no CDN, no build step).
"""
