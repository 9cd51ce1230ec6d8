"""Course machinery that the code you build leans on, kept apart so the lessons stay short.

result_wording   the wording of the dispatcher's results (notebook 05's `dispatch` imports it)
pairing_rules    the two per-message checks behind `pairing_problems` (notebook 03)
expect           stop a cell with one clear message when a real model went another way
"""
