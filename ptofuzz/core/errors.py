"""Exception family and exit codes shared by the library and the CLI."""

from __future__ import annotations

import enum


class ExitCode(enum.IntEnum):
    OK = 0
    MISMATCH = 1
    USAGE = 2
    INTERNAL = 3
    INTERRUPTED = 130  # Ctrl-C (SIGINT), as shells report it: 128 + 2
    TERMINATED = 143  # SIGTERM: 128 + 15


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread like Ctrl-C's KeyboardInterrupt, so that whatever an interrupt undoes or
    finishes (a half-written run rolled back, a campaign's summary written, a target's processes killed) is done
    on a TERM too (the entry point installs the handler)."""


class PtofuzzError(Exception):
    """Root of every error ptofuzz raises on purpose."""


class UsageError(PtofuzzError, ValueError):
    """Bad input from the user: an unknown name, an impossible region, a malformed file.

    The message is one line that names the bad value and says how to fix it.
    """


class CaseFolderError(UsageError):
    """A case folder cannot be read: missing or wrongly sized files, unparseable name."""


def one_line(error: BaseException) -> tuple[str, ExitCode]:
    """What the command line says for ``error`` (without the ``ptofuzz: error:`` prefix) and its exit code:
    bad input and unreadable files are usage errors, an interrupt is 130, anything else is an internal error."""
    if isinstance(error, UsageError):
        return str(error), ExitCode.USAGE
    if isinstance(error, OSError):
        return (f"{error.strerror or error}: {error.filename!r}" if error.filename else str(error)), ExitCode.USAGE
    if isinstance(error, Terminated):
        return "terminated", ExitCode.TERMINATED
    if isinstance(error, KeyboardInterrupt):
        return "interrupted", ExitCode.INTERRUPTED
    return (f"internal error: {type(error).__name__}: {error} (please report this with the command line)",
            ExitCode.INTERNAL)
