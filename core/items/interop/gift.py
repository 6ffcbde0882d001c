r"""GIFT, Moodle's plain-text question format: read and written as Moodle's own importer reads it.

A GIFT file is a list of questions separated by blank lines::

    // workbench: item=ab12
    ::Half::[html]<p>What is \\(\\frac\{1\}\{2\} \\times 6\\)?</p>{
        =3#Half of six.
        ~12
        ####<p>Multiply by six, then divide by two.</p>
    }

Lines starting with ``//`` are comments; ``::title::`` names the question;
``[html]``, ``[moodle]``, ``[plain]`` or ``[markdown]`` says how its text is
written; the answer block ``{...}`` says what kind of question it is (``=right
~wrong`` a choice, ``~%50%`` weights without ``=`` a multiple-answer
question, ``T``/``F`` true or false, ``=a =b`` short answers, ``#3.14:0.01`` a
number, ``{}`` an essay, ``a -> b`` matching); ``#`` starts an answer's
feedback and ``####`` the general feedback; ``$CATEGORY:`` lines put the
questions after them in a category. The characters ``~ = # { } :`` are written
``\~ \= \# \{ \} \:`` when they are text, a backslash is written ``\\``
and a line break inside a text ``\n``.

Reading follows Moodle's importer (question/format/gift/format.php): the same
splitting into questions, the same escapes, the same way of telling the kinds
apart, the same missing-word rule (an answer block in the middle of the text
leaves ``_____`` in its place). Where Moodle would import something broken (a
second answer block, braces that are not escaped) the question is skipped
with a reason instead.

Writing produces what Moodle imports as meant: HTML text (``[html]``) with
maths in ``\( \)``, every special character and every backslash escaped, so
that ``\\frac`` in the file arrives in Moodle as ``\frac``. What GIFT has no
room for travels in comment lines Moodle ignores and this reader reads back:
``// workbench: key=value`` for the provenance (written verbatim, ``%XX``
where needed) and ``// workbench-setting: name=json`` for marks, fixed option
order, case sensitivity, units and the like. Moodle's own ``// [tag:...]``
comments carry the tags. What GIFT cannot express for Moodle is skipped with
a reason: pictures and sounds (GIFT carries no files), options that refer to
each other and must keep their order (Moodle shuffles GIFT options), part
marks Moodle does not accept, short answers containing ``->``.
"""
from __future__ import annotations

from core.items.interop.gift_read import read, sniff
from core.items.interop.gift_syntax import FILENAME, FORMAT
from core.items.interop.gift_write import write

__all__ = ["FILENAME", "FORMAT", "read", "sniff", "write"]
