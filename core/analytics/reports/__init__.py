"""What the Analytics and progress pages show, computed from the store (the pages only draw it).

Every function takes the store (and the library, for skill names) and
returns DataFrames and plain values. Abilities come from the newest
calibration when one covers the student; until then, from an EAP on the fly
over the class's responses with the items at their declared difficulty.

``common`` (rosters, names, downloads), ``class_overview`` (activity,
abilities, the mastery matrix, weakest skills), ``student`` (one student),
``items`` (calibration, item tables, the Wright map, distractors, parameter
effects), ``exams`` (exam results) and ``fixes`` (blueprint fixes to consider).
"""

from core.analytics.reports.class_overview import (abilities, class_overview, class_weakest, mastery_answers,
                                                   mastery_matrix)
from core.analytics.reports.common import Z95, Progress, downloads
from core.analytics.reports.exams import evaluation_report, exam_report
from core.analytics.reports.fixes import NOISY_OUTFIT, RARE_SHARE, blueprint_fixes
from core.analytics.reports.items import (answered_blueprints, blueprint_report, distractor_report, item_table, latest_parameters, parameter_report,
                                          run_calibration, wright_map)
from core.analytics.reports.student import mastery_over_time, student_report

__all__ = [
    "Z95",
    "Progress",
    "downloads",
    "class_overview",
    "abilities",
    "mastery_matrix",
    "mastery_answers",
    "class_weakest",
    "student_report",
    "mastery_over_time",
    "run_calibration",
    "latest_parameters",
    "item_table",
    "wright_map",
    "distractor_report",
    "blueprint_report",
    "answered_blueprints",
    "parameter_report",
    "exam_report",
    "evaluation_report",
    "NOISY_OUTFIT",
    "RARE_SHARE",
    "blueprint_fixes",
]
