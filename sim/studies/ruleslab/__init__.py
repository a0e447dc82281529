"""``sim study rules``: what each house rule does to the game.

:mod:`.variants` lists the rulesets measured (the base, every single option change §11.3
allows with it, V1, V2, the other presets); :mod:`.measures` turns the games of one ruleset
into its measures and its paired differences from the base; :mod:`.tables` plays the tables
a measure needs (duplicate deals: the same seed and game numbers for every ruleset) and
keeps them for ``--resume``; :mod:`.study` runs it all. Definitions: docs/rules-lab.md.
"""

