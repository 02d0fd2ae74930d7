"""The puzzle language: equations of words, numbers and + - * / ^ ( ), parsed with positions.

    puzzle   := equation ((';' | newline) equation)*
    equation := side ('=' side)+                    ('==' is '=')
    side     := ['+' | '-'] term (('+' | '-') term)*
    term     := power (('*' | '/') factor)*          ('×' is '*', '÷' is '/')
    factor   := ['-'] power
    power    := atom [('^' | '**') factor]          (right-associative)
    atom     := WORD | NUMBER | '(' side ')'

A newline ends an equation where one could end (after an operand, outside parentheses,
once it has its '='), unless the next line starts with an operator no equation starts with
(* / ^ =): that line goes on with it. Elsewhere it is a space, so long sums may span lines; a
line starting with a sign (+ or -) after a complete equation begins a new one.

The text comes folded (folding.py: NFKC, so full-width forms are ASCII here). A WORD is a run
of letters of any script (str.isalpha(): Unicode category L*) and ASCII digits, with at least
one letter, its cased letters folded to upper case; a NUMBER is a run of ASCII digits. A
combining mark is refused (combining_mark), any other character too (unexpected_character).
"""

from __future__ import annotations

import unicodedata

from .errors import ErrorCode, PuzzleError
from .expr import NUM, POW, PROD, SUM, WORD, Node
from .folding import codepoint, fold_case, is_mark
from .syntax import check_terms

__all__ = ["MAX_DEPTH", "parse_equations"]

#: Deepest nesting of parentheses, signs and powers (a guard for the recursive parser).
MAX_DEPTH = 50

Token = tuple[str, str, int]  # kind ("word", "num", "op", "end"), text, position

_SPACES = frozenset(" \t\r\f\v")
_DIGITS = frozenset("0123456789")
_ALIASES = {"×": "*", "÷": "/", "−": "-"}


def _scan(text: str) -> list[Token]:
    """Split the text into tokens (newlines kept as ';' candidates), or raise PuzzleError."""
    out: list[Token] = []
    i, n, terms = 0, len(text), 0
    while i < n:
        char = text[i]
        if char in _SPACES:
            i += 1
        elif char.isalpha() or char in _DIGITS:
            j = i
            while j < n and (text[j].isalpha() or text[j] in _DIGITS):
                j += 1
            word = fold_case(text[i:j])
            terms += 1
            check_terms(terms, i)
            out.append((NUM if all(c in _DIGITS for c in word) else WORD, word, i))
            i = j
        elif char == "\n":
            out.append(("op", "\n", i))
            i += 1
        elif text.startswith("**", i) or text.startswith("==", i):
            if text.startswith("===", i):
                raise PuzzleError(ErrorCode.TRIPLE_EQUALS, i)
            out.append(("op", "^" if char == "*" else "=", i))
            i += 2
        elif char in "+-*/^()=;" or char in _ALIASES:
            out.append(("op", _ALIASES.get(char, char), i))
            i += 1
        else:
            raise _refused(char, i)
    out.append(("end", "", n))
    return out


def _refused(char: str, position: int) -> PuzzleError:
    """The error of a character the language has no use for (a combining mark has its own)."""
    number = codepoint(char)
    if is_mark(char):
        name = unicodedata.name(char, number)
        return PuzzleError(
            ErrorCode.COMBINING_MARK, position, char=char, codepoint=number, name=name
        )
    return PuzzleError(ErrorCode.UNEXPECTED_CHARACTER, position, char=char, codepoint=number)


def parse_equations(text: str) -> tuple[tuple[Node, ...], ...]:
    """Return the puzzle's equations, each the chain of its sides; raise PuzzleError if bad."""
    # Blank text (any Unicode space) is empty before a character of it is refused.
    equations = _Parser(_scan(text)).puzzle() if text.strip() else ()
    if not equations:
        raise PuzzleError(ErrorCode.EMPTY)
    return equations


class _Parser:
    """A recursive-descent parser over the token list (one method per grammar rule)."""

    def __init__(self, tokens: list[Token]) -> None:
        """Start at the first token."""
        self.tokens = tokens
        self.at = 0
        self.depth = 0
        self.parens = 0
        self.has_equals = False

    def peek(self) -> Token:
        """Return the next token, skipping newlines that cannot end an equation here."""
        while self.tokens[self.at][1] == "\n" and not self.can_end():
            self.at += 1
        return self.tokens[self.at]

    def can_end(self) -> bool:
        """Return whether a newline here ends the equation (else it is a space)."""
        if self.parens or not self.has_equals:
            return False
        before = self.tokens[self.at - 1] if self.at else ("op", "", 0)
        after = self.tokens[self.at + 1]
        ends = before[0] in (WORD, NUM) or before[1] == ")"
        # A side may start with a sign, so '+' or '-' opens the next equation.
        opens = after[0] in (WORD, NUM) or after[1] in ("(", "+", "-", "\n", "")
        return ends and (opens or after[0] == "end")

    def take(self) -> Token:
        """Consume and return the next token."""
        token = self.peek()
        self.at += 1
        return token

    def puzzle(self) -> tuple[tuple[Node, ...], ...]:
        """puzzle := equation ((';' | newline) equation)*"""
        equations = []
        while True:
            while self.tokens[self.at][1] in (";", "\n"):
                self.at += 1
            if self.tokens[self.at][0] == "end":
                break
            equations.append(self.equation())
            kind, op, pos = self.peek()
            self.no_operand(kind, op, pos)
            if kind != "end" and op not in (";", "\n"):
                raise PuzzleError(ErrorCode.EXPECTED_OPERATOR_OR_END, pos, op=op)
        return tuple(equations)

    def equation(self) -> tuple[Node, ...]:
        """equation := side ('=' side)+"""
        self.has_equals = False
        start = self.tokens[self.at][2]
        sides = [self.side()]
        while self.peek()[1] == "=":
            self.has_equals = True
            self.take()
            sides.append(self.side())
        if len(sides) == 1:
            kind, op, pos = self.peek()
            self.no_operand(kind, op, pos)
            if kind == "end" and start == 0:
                raise PuzzleError(ErrorCode.NO_EQUALS)
            raise PuzzleError(ErrorCode.EQUATION_WITHOUT_EQUALS, start)
        return tuple(sides)

    @staticmethod
    def no_operand(kind: str, op: str, pos: int) -> None:
        """Refuse an operand or a ')' where an equation's side has ended."""
        if kind in (WORD, NUM):
            raise PuzzleError(ErrorCode.MISSING_OPERATOR, pos)
        if op == ")":
            raise PuzzleError(ErrorCode.UNMATCHED_CLOSE, pos)

    def side(self) -> Node:
        """side := ['+' | '-'] term (('+' | '-') term)*"""
        op = self.peek()[1]
        first = "+"
        if op in ("+", "-"):
            first = self.take()[1]
        ops, args = [first], [self.term()]
        while self.peek()[1] in ("+", "-"):
            ops.append(self.take()[1])
            args.append(self.term())
        if len(args) == 1 and first == "+":
            return args[0]
        return Node(SUM, tuple(args), tuple(ops), pos=args[0].pos)

    def term(self) -> Node:
        """term := power (('*' | '/') factor)*"""
        first = self.power()
        ops, args = ["*"], [first]
        while self.peek()[1] in ("*", "/"):
            op, pos = self.take()[1:]
            arg = self.factor()
            if op == "/" and arg.kind == NUM and int(arg.text) == 0:
                raise PuzzleError(ErrorCode.DIVISION_BY_ZERO, pos)
            ops.append(op)
            args.append(arg)
        if len(args) == 1:
            return first
        return Node(PROD, tuple(args), tuple(ops), pos=first.pos)

    def factor(self) -> Node:
        """factor := ['-'] power"""
        if self.peek()[1] == "-":
            pos = self.take()[2]
            self.enter(pos)
            node = Node(SUM, (self.power(),), ("-",), pos=pos)
            self.depth -= 1
            return node
        return self.power()

    def power(self) -> Node:
        """power := atom [('^' | '**') factor]"""
        base = self.atom()
        if self.peek()[1] != "^":
            return base
        pos = self.take()[2]
        self.enter(pos)
        exponent = self.factor()
        self.depth -= 1
        return Node(POW, (base, exponent), pos=pos)

    def atom(self) -> Node:
        """atom := WORD | NUMBER | '(' side ')'"""
        kind, text, pos = self.take()
        if kind in (WORD, NUM):
            return Node(kind, text=text, pos=pos)
        if text == "(":
            self.enter(pos)
            self.parens += 1
            inner = self.side()
            closing = self.take()
            if closing[1] != ")":
                raise PuzzleError(ErrorCode.UNCLOSED_OPEN, pos)
            self.parens -= 1
            self.depth -= 1
            return inner
        if text == ")":
            raise PuzzleError(ErrorCode.EMPTY_PARENTHESES, pos)
        if kind == "end":
            raise PuzzleError(ErrorCode.TERM_MISSING_AT_END, pos)
        if text in ("\n", ";"):
            raise PuzzleError(ErrorCode.TERM_MISSING_AT_EQUATION_END, pos)
        raise PuzzleError(ErrorCode.TERM_MISSING_BEFORE, pos, op=text)

    def enter(self, pos: int) -> None:
        """Go one level deeper, refusing absurd nesting."""
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise PuzzleError(ErrorCode.TOO_DEEP, pos, depth=MAX_DEPTH)
