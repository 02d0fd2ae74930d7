"""The puzzle language: how text becomes a Puzzle, or a PuzzleError at a position.

Modules: errors.py (PuzzleError, the code of every fault and its English sentence: a new
error goes here) · folding.py (text as typed: NFKC folding with a map back to the typed
offsets, one case, display width) · syntax.py (the caps, the fast path for plain sums) ·
grammar.py (equations of words, numbers and + - * / ^ ( ), parsed with positions) · expr.py
(expression trees, their canonical text and size caps) · options.py (the leading-zero policy,
the base, fixed letters, and every check of their values: a new option and its rule go here)
· puzzle.py (the Puzzle: parsing, validation, the coefficient form of plain sums).
"""
