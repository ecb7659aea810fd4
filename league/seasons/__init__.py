"""Seasonal leagues (issue 8): a club's league of seasons, divisions, Berger fixtures, promotion and
relegation.

A Django app nested in the league package (app label ``seasons``) rather than more models in
``league/models.py``: the season models get their own migrations, so they evolve independently of
the tournament and ladder models (and of the engineers changing those), while the code still sits
under ``league/`` as the architecture's layout wants. It reuses the league's clubs and permissions
(``league.services.clubs``), its Berger tables (``league.scoring.roundrobin``) and tiebreak maths
(``league.scoring.standings``); it never edits them.
"""
