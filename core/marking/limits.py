"""Every bound on how much an answer may make marking read or compute.

Each size that could make reading or algebra slow (text length, bracket depth,
exponents, degree, expansion size) is checked against one of these before any
work is done, which is what keeps ``mark_answer`` from hanging.
"""
from __future__ import annotations

MAX_ANSWER_CHARS = 1000
MAX_NUMBER_CHARS = 120          # longer than any number a student writes; keeps the regexes linear-ish
MAX_NUMBER_DIGITS = 100
MAX_DECIMAL_EXPONENT = 400      # 1e999999 must not become a million-digit integer
TOO_LARGE = "That number is too large or too small to mark."
MAX_EXPRESSION_CHARS = 600
MAX_NODES = 400               # numbers, names and operations in one expression
MAX_EXPONENT_VALUE = 10000    # (x-a)^6000 is evaluated, not expanded; 9^9^9 is never computed
MAX_FACTORIAL = 1000
MAX_NESTING = 20
MAX_PARSE_DEPTH = 60            # signs, functions and brackets together
MAX_EXPONENT = 20               # on anything containing a sum: (x+1)^20 is the most expand may meet
MAX_LETTER_EXPONENT = 100       # on a single letter or monomial x^36 costs nothing and is a common wrong answer
MAX_DEGREE = 400                # (x^20)^20 is fine, ((x^20)^20)^20 is not
MAX_EXPAND_TERMS = 2000         # above this sympy.expand could take seconds; numeric checks decide alone
MAX_FACTOR_DEGREE = 12
