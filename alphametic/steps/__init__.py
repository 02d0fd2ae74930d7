"""The expression engine: products, quotients, powers and systems, searched by compiled steps.

Modules: equations.py (the words and constraints, indexed) · schedule.py (the order of search
steps) · evaluate.py (expression trees as closures: exact, modular, inverted) · spans.py
(interval arithmetic over trees) · checks.py (what a step checks once its letter is set) ·
closures.py (the steps compiled to closures) · state.py (the mutable state of one run) ·
walker.py (one run: the chain of steps, counting, batches, progress) · native.py (which plans
the optional C twin of the steps, _native.c, runs, and each plan as its int64 program). A new
operator is read in ../language/grammar.py and evaluated here (evaluate.py, spans.py; and in
_native.c, or native.fits() leaves it to the closures).
"""
