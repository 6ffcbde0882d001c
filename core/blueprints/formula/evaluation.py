"""Evaluation of a checked Formula: simpleeval with bounded operators and functions, and a deadline.

The tree was whitelisted at compile time; evaluation adds the runtime guard:
the size-bounded operators of ``bounds``, the wrapped functions of
``functions``, and a deadline checked at every node, for whatever the size
limits did not foresee. Every failure comes out as a FormulaError naming the
expression. Each thread keeps one evaluator and reuses it: an evaluator holds
the names and the deadline of the evaluation under way, so threads cannot
share one.
"""
from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, Any, Mapping

import simpleeval

from core.blueprints.formula.bounds import _OPERATORS, _check_value
from core.blueprints.formula.errors import FormulaError
from core.blueprints.formula.functions import CONSTANTS, FUNCTIONS

if TYPE_CHECKING:  # whitelist builds Formulas and imports this module to evaluate them
    from core.blueprints.formula.whitelist import Formula

DEFAULT_TIME_LIMIT_S = 2.0   # generous: sizes are bounded already; this only stops the unforeseen


class _Evaluator(simpleeval.EvalWithCompoundTypes):
    """simpleeval with bounded operators and a deadline checked per node."""

    def __init__(self):
        super().__init__(operators=dict(_OPERATORS), functions=dict(FUNCTIONS), names={})
        self.deadline = 0.0

    def _eval(self, node):
        if time.perf_counter() > self.deadline:
            raise FormulaError("evaluation took too long")
        return super()._eval(node)

    def _eval_formattedvalue(self, node):
        value = self._eval(node.value)
        if node.format_spec is None:
            return value
        spec = "".join(p.value for p in node.format_spec.values)
        return format(value, spec)


_local = threading.local()


def _evaluator() -> _Evaluator:
    ev = getattr(_local, "evaluator", None)
    if ev is None:
        ev = _local.evaluator = _Evaluator()
    return ev


def evaluate_compiled(formula: Formula, env: Mapping[str, Any], time_limit_s: float = DEFAULT_TIME_LIMIT_S) -> Any:
    ev = _evaluator()
    names = dict(CONSTANTS)
    names.update(env)
    ev.names = names
    ev.deadline = time.perf_counter() + time_limit_s
    try:
        result = ev.eval(formula.source, previously_parsed=formula.tree.body)
    except FormulaError as exc:
        exc.expression = formula.source
        raise
    except simpleeval.NameNotDefined as exc:
        raise FormulaError(f"name '{exc.name}' has no value here", formula.source) from None
    except simpleeval.InvalidExpression as exc:
        raise FormulaError(str(exc), formula.source) from None
    except ZeroDivisionError:
        raise FormulaError("division by zero", formula.source) from None
    except (TypeError, ValueError, ArithmeticError, IndexError, KeyError) as exc:
        detail = str(exc) or type(exc).__name__
        if isinstance(exc, KeyError):
            detail = f"no entry {exc} in table"
        raise FormulaError(f"{type(exc).__name__}: {detail}", formula.source) from None
    except (RecursionError, MemoryError):
        raise FormulaError("expression too large to evaluate", formula.source) from None
    try:
        return _check_value(result)
    except FormulaError as exc:
        exc.expression = formula.source
        raise
