"""Run the command line: python -m alphametic."""

from .cli.main import main

if __name__ == "__main__":
    raise SystemExit(main())
