"""The databases a benchmark runs on: a DuckDB file in a temp folder, and a PostgreSQL database.

PostgreSQL is a throwaway local cluster (Debian's server, as the tests use,
but with its default durability: every commit flushed to disk) unless ``--pg-url`` names a server to use; with neither available the
PostgreSQL runs are skipped with the reason printed.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Callable, Iterator, Optional, Union

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

BACKENDS = ("duckdb", "postgresql")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--backend", choices=(*BACKENDS, "both"), default="both",
                        help="which database to measure (default both, the same work on each)")
    parser.add_argument("--pg-url", default=None,
                        help="an empty PostgreSQL database to use instead of a throwaway local cluster")
    parser.add_argument("--figures", default=None, help=argparse.SUPPRESS)   # where a child run leaves its figures


def each(args: argparse.Namespace, name: str, run: Callable[[Union[str, Path]], dict[str, float]]) -> dict:
    """{backend: figures} from ``run(target)`` on each backend asked for, each in a fresh process of its own
    (so that "cold" means cold on both, and one backend's caches never help the other)."""
    if args.backend != "both":
        with databases(args, name) as targets:
            figures = {backend: run(target) for backend, target in targets}
        if args.figures:
            Path(args.figures).write_text(json.dumps(figures))
        return figures
    figures: dict[str, dict[str, float]] = {}
    with databases(args, name) as targets, tempfile.TemporaryDirectory() as folder:
        for backend, target in targets:
            out = Path(folder) / f"{backend}.json"
            argv = [a for a in sys.argv[1:]]
            argv = _without_option(_without_option(argv, "--backend"), "--pg-url")
            argv += ["--backend", backend, "--figures", str(out)]
            if backend == "postgresql":
                argv += ["--pg-url", str(target)]
            print(f"\n=== {backend} ===", flush=True)
            subprocess.run([sys.executable, sys.argv[0], *argv], check=True)
            figures.update(json.loads(out.read_text()))
    return figures


def _without_option(argv: list[str], option: str) -> list[str]:
    kept, skip = [], False
    for arg in argv:
        if skip:
            skip = False
        elif arg == option:
            skip = True
        elif not arg.startswith(option + "="):
            kept.append(arg)
    return kept


@contextlib.contextmanager
def databases(args: argparse.Namespace, name: str = "bench") -> Iterator[list[tuple[str, Union[str, Path]]]]:
    """[(backend, --db target)] for the backends asked for; everything made is removed afterwards."""
    wanted = BACKENDS if args.backend == "both" else (args.backend,)
    cluster = None
    with tempfile.TemporaryDirectory(prefix=f"{name}-") as folder:
        found: list[tuple[str, Union[str, Path]]] = []
        try:
            for backend in wanted:
                if backend == "duckdb":
                    found.append((backend, Path(folder) / f"{name}.duckdb"))
                    continue
                if args.pg_url:
                    found.append((backend, args.pg_url))
                    continue
                from tests.pg_cluster import start_cluster, unavailable_reason
                reason = unavailable_reason()
                if reason:
                    print(f"(PostgreSQL skipped: {reason})")
                    continue
                cluster = start_cluster(durable=True)   # every commit flushed, as on a real server
                found.append((backend, cluster.create_database(prefix=name.replace("-", "_"))))
            yield found
        finally:
            if cluster is not None:
                cluster.stop()


def ratio_line(label: str, figures: dict[str, float], unit: str = "ms", scale: float = 1000.0,
               lower_is_better: bool = True) -> Optional[str]:
    """One line comparing a figure across backends: each value and PostgreSQL's against DuckDB's."""
    if not figures:
        return None
    parts = [f"{b} {v * scale:8.1f} {unit}" for b, v in figures.items()]
    if len(figures) == 2 and figures["duckdb"]:
        parts.append(f"postgresql/duckdb {figures['postgresql'] / figures['duckdb']:5.2f}x")
    return f"  {label:<44} " + "   ".join(parts)
