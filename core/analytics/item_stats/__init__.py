"""Classical item analysis: facility, discrimination, distractors, reliability, parameter effects.

Pure functions over pandas DataFrames shaped like the store's tables.

Answers (``responses``), one row per answer:

* ``student``, ``item_id``;
* ``correct`` (True/False) and, for questions with part marks, ``score`` and
  ``max_score`` (marks earned and available);
* ``created_at`` (to find first attempts), ``answer`` (what the student gave;
  needed for distractor analysis only).

Items (``items``), one row per item: ``item_id`` (or ``id``), and as needed
``blueprint_id``, ``options`` (JSON list of option texts), ``correct_index``,
``option_strategies`` (JSON list aligned with ``options``: the misconception
strategy each distractor stands for, null for the key), ``misconceptions``
(JSON {strategy: wrong answer}) and ``params`` (JSON {parameter: value}, the
generator's values). JSON columns may hold JSON text or parsed lists / dicts.

Column names are parameters of every function; the defaults match the store.
Generated items are often seen by one student each; to analyse them, pass
``item=`` a column that groups them (e.g. the blueprint and level) so that
every item generated from it counts as one.

The modules: ``inputs`` (reading the tables), ``scoring`` (first attempts and
mark fractions, which every statistic starts from), ``facility_discrimination``,
``options`` (distractors), ``consistency`` (reliability), ``parameters``
(parameter effects). Everything is importable from here.
"""
from __future__ import annotations

from core.analytics.item_stats.consistency import cronbach_alpha, kr20, reliability, reliability_by
from core.analytics.item_stats.facility_discrimination import (MIN_N_FOR_NOTE as MIN_N_FOR_NOTE, UPPER_LOWER_SHARE,
                                                               WEAK_DISCRIMINATION as WEAK_DISCRIMINATION,
                                                               discrimination, facility)
from core.analytics.item_stats.inputs import Ability as Ability
from core.analytics.item_stats.options import NO_OPTION, distractors, strategy_summary
from core.analytics.item_stats.parameters import parameter_effects, parameter_facility, parameter_tables
from core.analytics.item_stats.scoring import item_scores, score_matrix

__all__ = ["item_scores", "score_matrix", "facility", "discrimination", "distractors", "strategy_summary",
           "cronbach_alpha", "kr20", "reliability", "reliability_by", "parameter_facility", "parameter_effects",
           "parameter_tables",
           "UPPER_LOWER_SHARE", "NO_OPTION"]
