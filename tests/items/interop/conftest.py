"""Shared fixtures for the interop tests: the 1EdTech QTI 3.0 schemas, found beside the project.

The schemas live outside the project (``../shared/qti3-schemas``, or the folder
named by the ``QTI3_SCHEMAS`` environment variable). Where they are absent,
tests that validate against them are skipped with a reason naming the path
looked at. Loading them takes a few seconds, so it happens once per session.
"""
from __future__ import annotations

import io
import os
import zipfile
from pathlib import Path
from types import SimpleNamespace

import pytest

ASI_SCHEMA = "qtiv3p0/imsqti_asiv3p0_sbacv1p0_v1p0.xsd"
CP_SCHEMA = "qtiv3p0/imsqtiv3p0_imscpv1p2_v1p0.xsd"
XLINK_NS = "http://www.w3.org/1999/xlink"


def _schema_dir() -> Path:
    configured = os.environ.get("QTI3_SCHEMAS")
    if configured:
        return Path(configured).resolve()
    return (Path(__file__).parents[3] / ".." / "shared" / "qti3-schemas").resolve()


@pytest.fixture(scope="session")
def qti3_schema_dir() -> Path:
    """The folder holding the QTI 3.0 schemas; the test is skipped (saying where it looked) when it is absent."""
    folder = _schema_dir()
    if not (folder / ASI_SCHEMA).is_file() or not (folder / CP_SCHEMA).is_file():
        pytest.skip(f"QTI 3.0 schemas not found at {folder} (set QTI3_SCHEMAS to their folder); "
                    f"schema validation skipped")
    return folder


@pytest.fixture(scope="session")
def qti3_schemas(qti3_schema_dir: Path) -> SimpleNamespace:
    """The item (ASI) and manifest (content package) schemas, loaded once, and a package validator.

    ``validate_package(data)`` returns a list of "path: reason" strings, empty
    when every XML file of the package is valid.
    """
    import xmlschema

    item = xmlschema.XMLSchema(str(qti3_schema_dir / ASI_SCHEMA))
    manifest = xmlschema.XMLSchema(str(qti3_schema_dir / CP_SCHEMA),
                                   locations=[(XLINK_NS, str(qti3_schema_dir / "w3" / "xlink.xsd"))])

    def errors(schema, data: bytes, path: str) -> list[str]:
        return [f"{path}: {e.reason} (at {e.path})" for e in schema.iter_errors(io.BytesIO(data))]

    def validate_package(data: bytes) -> list[str]:
        found: list[str] = []
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            names = archive.namelist()
            if "imsmanifest.xml" not in names:
                return ["imsmanifest.xml: missing from the package"]
            for name in names:
                if name == "imsmanifest.xml":
                    found += errors(manifest, archive.read(name), name)
                elif name.endswith(".xml"):
                    found += errors(item, archive.read(name), name)
        return found

    return SimpleNamespace(item=item, manifest=manifest, errors=errors, validate_package=validate_package)
