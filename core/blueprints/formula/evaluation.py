"""Evaluation of a checked Formula: simpleeval with bounded operators and functions, and a deadline.

The tree was whitelisted at compile time; evaluation adds the runtime guard:
the size-bounded operators of ``bounds``, the wrapped functions of
``functions``, and a deadline checked at every node, for whatever the size
limits did not foresee. Every failure comes out as a FormulaError naming the
expression. Each thread keeps one evaluator and reuses it: an evaluator holds
the names and the deadline of the evaluation under way, so threads cannot
share one.

A deadline per evaluation does not bound a task that evaluates many times
(sampling a level, importing a bank), so a caller may also set a time budget
for the whole task with ``time_budget``: every evaluation in the thread then
stops at the budget's end too, raising ``TimeBudgetExceeded``. That is not a
FormulaError on purpose: it passes through the handlers that turn a failed
formula into a message about that formula, up to the code that set the
budget, which says what ran out of time.
"""
from __future__ import annotations

import contextlib
import math
import threading
import time
from typing import TYPE_CHECKING, Any, Iterator, Mapping, Optional

import simpleeval

from core.blueprints.formula.bounds import _OPERATORS, _check_value
from core.blueprints.formula.errors import FormulaError
from core.blueprints.formula.functions import CONSTANTS, FUNCTIONS

if TYPE_CHECKING:  # whitelist builds Formulas and imports this module to evaluate them
    from core.blueprints.formula.whitelist import Formula

DEFAULT_TIME_LIMIT_S = 2.0   # generous: sizes are bounded already; this only stops the unforeseen


class TimeBudgetExceeded(Exception):
    """The time allowed for a whole task (many evaluations) ran out; raised by any evaluation in it."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        super().__init__(f"the time allowed ({seconds:g} s) was used up")


class _Budget:
    __slots__ = ("deadline", "seconds")

    def __init__(self, deadline: float, seconds: float):
        self.deadline = deadline
        self.seconds = seconds


_NO_BUDGET = _Budget(math.inf, math.inf)


class _Evaluator(simpleeval.EvalWithCompoundTypes):
    """simpleeval with bounded operators and a deadline checked per node."""

    def __init__(self):
        super().__init__(operators=dict(_OPERATORS), functions=dict(FUNCTIONS), names={})
        # simpleeval adds list/tuple/dict/set, and reads an unknown name as a function of that name.
        self.functions = dict(FUNCTIONS)
        self.deadline = 0.0          # the earlier of this evaluation's deadline and the task budget's end
        self.budget = _NO_BUDGET

    def _eval(self, node):
        if time.perf_counter() > self.deadline:
            if self.deadline >= self.budget.deadline:
                raise TimeBudgetExceeded(self.budget.seconds)
            raise FormulaError("evaluation took too long")
        return super()._eval(node)

    def _eval_name(self, node):
        try:
            return self.names[node.id]
        except KeyError:
            raise simpleeval.NameNotDefined(node.id, self.expr) from None

    # Displays build new collections: bounded like any other result (nested entries included).
    def _eval_list(self, node):
        return _check_value(super()._eval_list(node))

    def _eval_tuple(self, node):
        return _check_value(super()._eval_tuple(node))

    def _eval_set(self, node):
        return _check_value(super()._eval_set(node))

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


@contextlib.contextmanager
def time_budget(seconds: float) -> Iterator[None]:
    """Bound every evaluation in this thread, until the block ends, to ``seconds`` from now in total.

    Budgets nest: an inner budget never reaches past the outer one's end.
    """
    outer: Optional[_Budget] = getattr(_local, "budget", None)
    deadline = time.perf_counter() + seconds
    budget = _Budget(deadline, seconds) if outer is None or deadline < outer.deadline else outer
    _local.budget = budget
    try:
        yield
    finally:
        _local.budget = outer


def check_time_budget() -> None:
    """Raise TimeBudgetExceeded if the budget of this thread's task has run out (for loops between evaluations)."""
    budget = getattr(_local, "budget", None)
    if budget is not None and time.perf_counter() > budget.deadline:
        raise TimeBudgetExceeded(budget.seconds)


def evaluate_compiled(formula: Formula, env: Mapping[str, Any], time_limit_s: float = DEFAULT_TIME_LIMIT_S) -> Any:
    ev = _evaluator()
    names = dict(CONSTANTS)
    names.update(env)
    ev.names = names
    budget = getattr(_local, "budget", None) or _NO_BUDGET
    ev.budget = budget
    ev.deadline = min(time.perf_counter() + time_limit_s, budget.deadline)
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
