"""Questions in and out of the workbench: QTI 3.0 packages, Moodle XML and GIFT.

``model`` is the question as the three formats hold it; ``moodle_xml``, ``gift``
and ``qti`` read and write their format; ``convert`` turns exchange questions
into our items and back; ``exporting`` and ``importing`` are what the command
line and the Review page call.
"""
