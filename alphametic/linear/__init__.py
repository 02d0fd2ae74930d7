"""The plain-sum engine: a sum of words with coefficients, searched column by column.

Modules: plan.py (letter order and the per-depth tables) · bounds.py (what the letters after a
depth can still add) · core.py (the depth-first loops that hand solutions up) · counting.py
(the same loops adding solutions up without building them) · native.py (which engine runs a
plan, and the drivers of the optional compiled twin of core.py and counting.py, _native.c) ·
columns.py (the composer's count of a sum of words, column by column up to a cap, and the
choice of it or its compiled twin in _native.c).
"""
