"""Tournaments (round robin, Swiss, multiplayer Swiss, elimination brackets, groups to playoff), one
module per floor; a floor imports only the floors below it (an import-linter ``layers`` contract
in pyproject.toml keeps it so):

    api | tasks          HTTP views; Celery tasks (they import the services they call in the task body)
    selectors            reads for pages and the API
    lifecycle | ops      create, enter, start, advance, results; check-in, drops, manual pairings,
                         corrections, round deadlines
    pairing | brackets   Swiss and multiplayer Swiss pairing inputs; elimination bracket rounds
    standings            standings from the decided boards (with elimination placements)
    bracket_state        the bracket as its decided boards make it: seeds, results, placements
    boards               the tournament lock, entries in play, rounds and their boards, deciding a
                         board, and the ``round_complete`` signal
    settings             formats, the settings each takes, and their validation

Nothing is re-exported here: import from the module that owns the name.
"""
