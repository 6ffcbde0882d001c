"""Pieces the pages share: the process's workbench and session runner, sign-in checks, and
renderers (a question's text, an item card, the tutor's help, analytics views, the pipeline form).

Not a page folder: the server only serves what app.py's navigation lists, and
nothing here is ever listed.
"""
