"""Build the optional native cores (linear/_native.c, steps/_native.c, explain/_native.c);
install without them if that fails.

The pure-Python engine is the reference and runs everything, so a machine without a C
compiler still installs the project (markupsafe's pattern), with one line saying so. With
ALPHAMETIC_ENGINE=native set (CI, images) a failed build fails the install instead.
"""

from __future__ import annotations

import os
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.errors import CCompilerError, ExecError, PlatformError

FAILURES = (CCompilerError, ExecError, PlatformError, OSError)


def _required() -> bool:
    """Return whether the native core must build (ALPHAMETIC_ENGINE=native)."""
    return os.environ.get("ALPHAMETIC_ENGINE", "").strip().lower() == "native"


def _skip(error: Exception) -> None:
    """Say in one line that the native core was not built (or fail when it must be)."""
    if _required():
        raise error
    line = f"alphametic: native core not built ({error}); the pure-Python engine runs"
    print(line, file=sys.stderr)


class OptionalBuildExt(build_ext):
    """build_ext that leaves the extension out when it cannot be compiled."""

    def run(self) -> None:
        """Build the extensions, or say why not."""
        try:
            super().run()
        except FAILURES as error:
            _skip(error)

    def build_extension(self, ext: Extension) -> None:
        """Build one extension, or say why not."""
        try:
            super().build_extension(ext)
        except FAILURES as error:
            _skip(error)
            # Nothing was built, so editable installs must not copy it into the source tree.
            self.extensions.remove(ext)


setup(
    ext_modules=[
        Extension("alphametic.linear._native", ["alphametic/linear/_native.c"], optional=False),
        Extension("alphametic.steps._native", ["alphametic/steps/_native.c"], optional=False),
        Extension("alphametic.explain._native", ["alphametic/explain/_native.c"], optional=False),
    ],
    cmdclass={"build_ext": OptionalBuildExt},
)
