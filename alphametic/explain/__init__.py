"""Explanations: how a person would find a puzzle's answer, in English, Japanese and Thai.

Modules: walkthrough.py (deductions, then a few cases: the entry point) · model.py (letters
with candidate digits, carries with bounds) · columns.py (what one column still allows) ·
remainders.py (casting out (base - 1)s, even and odd) · factors.py (a puzzle of products,
quotients and powers read as sums of products) · products.py (what the last digits, sizes
and remainders of products allow) · rules.py (the deduction rules: a new rule goes
here) · text.py (steps as message keys with parameters, and ENGLISH) · ja.py and th.py (the
same keys in Japanese and Thai) · languages.py (each language's table, and the one a POSIX
locale names) · difficulty.py (how hard by hand, from the explanation's shape) · native.py
(the column and remainder walks on the optional C core, _native.c, when it is built and
chosen; columns.py and remainders.py hold their pure-Python twins).
"""
