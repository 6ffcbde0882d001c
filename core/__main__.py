"""`python -m core`: the same command line as `workbench` (core.cli)."""
from core.cli import main

raise SystemExit(main())
