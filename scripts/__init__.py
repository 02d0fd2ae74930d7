"""Developer scripts: `python -m scripts.run` is what `make run` runs."""
