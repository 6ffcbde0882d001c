"""The workbench's behaviour, one folder per concern (the README's "How it is built" maps them).

``core.workbench.open_workbench`` opens the database and the blueprint library
together; ``workbench`` (or ``python -m core``) is the command line.
"""
