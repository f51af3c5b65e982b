"""The `flowstate` command line: main.py (parser, command table, exit statuses), argtypes.py,
one module per command."""
