"""Reported results (issue 17): a pairing played at a real table, decided by a result its players
report and confirm (or an organiser settles), or by a table game's record."""
