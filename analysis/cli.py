"""Command line: memfbench analyze (or python3 -m analysis) {summarize,compare,report,gate,export,diff,threads} FILE...

Every user error (a bad option, an unreadable or invalid result file, an output that cannot be
written) is one line on stderr, "analysis: ...", naming the file or option, and exit status 2;
outputs are written atomically, so a failure leaves no partial or temporary file.

The subcommands are the modules of analysis/commands/, named in COMMANDS: each declares its
sub-parser (add_parser) and runs it (run); this module parses the command line, runs the one
asked for, and turns the errors into those lines."""
from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
from types import ModuleType
from typing import NoReturn

from .commands.common import PROG, UsageError, command_name
from .io.files import OutputError
from .io.load import shown_name
from .io.reading import ResultFileError

# The subcommands, in the order --help lists them: analysis/commands/NAME.py each.
COMMANDS = ("summarize", "compare", "report", "gate", "diff", "classes", "sweep", "pressure", "threads", "probe",
            "callsites", "history", "pool", "ab", "export", "suite", "counts", "pgo", "variants", "race", "tune")
# The longest error line: a path of thousands of characters is shown with its middle elided.
MESSAGE_MAX = 1000


class _Parser(argparse.ArgumentParser):
    """argparse's errors as one line like every other error (it prints the usage and a second line)."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def one_line(message: str, limit: int = MESSAGE_MAX) -> str:
    """message as one printable line: control characters (a newline in a file name) and
    undecodable bytes escaped, the middle of an overlong message elided."""
    text = shown_name(message)
    return text if len(text) <= limit else f"{text[:limit * 2 // 3]} ... {text[-(limit // 4):]}"


def commands(names: tuple[str, ...] = COMMANDS) -> dict[str, ModuleType]:
    """Each subcommand's module, by name, in COMMANDS' order (those of `names`)."""
    return {name: importlib.import_module(f"{__package__}.commands.{name}") for name in COMMANDS if name in names}


def asked(argv: list[str]) -> tuple[str, ...]:
    """The subcommands whose modules a command line needs: the one it names first, as every command
    line that runs one does, so that only its module and what it imports are loaded (a command's
    imports are most of its start); every one for anything else (--help, a mistyped name), whose
    answer lists them all."""
    return (argv[0],) if argv and argv[0] in COMMANDS else COMMANDS


def _parser(modules: dict[str, ModuleType]) -> argparse.ArgumentParser:
    # Help names the command as the user ran it: memfbench analyze, or the interpreter with -m.
    ap = _Parser(prog=command_name(), description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    for module in modules.values():
        module.add_parser(sub)
    return ap


def did_you_mean(parser: argparse.ArgumentParser, argv: list[str], message: str) -> str:
    """For argparse's "unrecognized arguments: --basline libc": ' (did you mean --baseline?)', the
    subcommand's option nearest to the first unknown one, where one is near; else ""."""
    import difflib
    if not message.startswith("unrecognized arguments:") or not argv:
        return ""
    word = next((w.split("=", 1)[0] for w in message.split(":", 1)[1].split() if w.startswith("--")), "")
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    sub = subs[0].choices.get(argv[0]) if subs else None
    if not word or sub is None:
        return ""
    options = [o for a in sub._actions for o in a.option_strings if o.startswith("--")]
    near = difflib.get_close_matches(word, options, n=1, cutoff=0.75)
    return f" (did you mean {near[0]}?)" if near else ""


def main(argv: list[str] | None = None) -> int:
    reconfigure = getattr(sys.stdout, "reconfigure", None)
    if reconfigure is not None:  # a file or variant name that is not UTF-8 is printed escaped, not a crash
        reconfigure(errors="backslashreplace")
    try:
        argv = sys.argv[1:] if argv is None else argv
        modules = commands(asked(argv))
        parser = _parser(modules)
        try:
            args = parser.parse_args(argv)
        except UsageError as e:
            raise UsageError(str(e) + did_you_mean(parser, argv, str(e))) from None
        return modules[args.cmd].run(args)
    except (UsageError, ResultFileError, OutputError) as e:
        print(f"{PROG}: {one_line(str(e))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 128 + signal.SIGINT
    except BrokenPipeError:
        # The reader of stdout went away (| head): not an error of the analysis, and not 1, which
        # the gate uses for a regression; the shell's status for SIGPIPE. stdout now points to
        # /dev/null so that Python's flush at exit does not report the pipe a second time.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 128 + signal.SIGPIPE


if __name__ == "__main__":
    sys.exit(main())
