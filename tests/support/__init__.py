"""What the tests (and the benchmarks) share; nothing here ships in an installed package.

processes.py: throwaway redis-server, celery workers and gunicorn, and polling helpers ·
puzzles.py: independent checks of solutions, compact encoding, shared puzzles · web.py: the
app on test settings and checks of problem responses and the form · chaos.py, load.py:
scenarios and load drivers shared by tests/chaos and bench/ · compose.py: docker-compose.yml
read as data · errors.py: an input that raises each engine error code · memory.py: a Redis
filled to its memory limit · typed.py: puzzles typed in other scripts, with their counts ·
shares.py: issue 32's reservation attack, its clients on loopback addresses of their own ·
soak.py: the combined-fault soak (workload, fault schedule, history and its checker) ·
explain_stream.py: an explanation timed quiet and under a stream of small jobs · loopback.py:
clients on loopback addresses of their own · hangups.py, estimating.py: issue 32's hung-up
long polls and estimate storm · victims.py: the small solves those attacks time.
"""
