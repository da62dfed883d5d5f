"""The subcommands of `python3 -m analysis` (memfbench analyze), one module each: NAME.py holds
the sub-parser of `analysis NAME` (add_parser(sub), which returns it) and what it does (run(args),
which returns the exit status); common.py holds what several share (their options and checks,
UsageError, the outputs' rule). cli.py lists them in COMMANDS, in the order --help shows them.

A new subcommand is a new module here with those two functions, and its name in that list."""
