"""mbtools: the Python package behind tools/memboot and the test and capture tools.

One module per subject (records, exit statuses, QEMU runner, benchmarks, traces,
plots, Linux side by side). tools/memboot is the command-line front end; it puts
tools/ on sys.path and dispatches each subcommand to its module.
Standard library only, except for plotting (python3-matplotlib).
"""
