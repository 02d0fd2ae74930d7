"""The `alphametic` command line.

Modules: main.py (solve, count or explain one puzzle; the entry point) · batch.py (one puzzle
per input line, one JSON object per output line) · console.py (buffered result lines, a
progress bar on stderr, Ctrl-C as a request) · compose.py (`alphametic compose`: puzzles
with exactly K solutions from a word list).
"""
