"""Blueprints: the pydantic models of skills, assessments and course specs (models), YAML loading with
path-precise errors (loader), safe formulas (formula) and their domain helpers (helpers), compiling a
skill for generation (compiler) and the library of every blueprint on disk (library)."""
