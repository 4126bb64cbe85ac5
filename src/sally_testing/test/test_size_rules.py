"""The house's size rules, held in src/ (tests aside): no function over :data:`MAX_FUNCTION_LINES`
lines (its whole text, signature and docstring included), no class with more than
:data:`MAX_ATTRIBUTES` attributes (the names its methods store on ``self`` and its annotated fields,
its properties aside). Read with ``ast``; what breaks a rule is named with its place and size."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2]
MAX_FUNCTION_LINES = 60
MAX_ATTRIBUTES = 20


def _sources() -> list[Path]:
    return sorted(
        path
        for path in SRC.rglob("*.py")
        if not ({"test", "build"} & set(path.relative_to(SRC).parts)) and not path.name.startswith("test_")
    )


def _properties(cls: ast.ClassDef) -> set[str]:
    """The names ``cls`` defines as properties (a getter, and any setter of the same name)."""
    out = set()
    for item in cls.body:
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for decorator in item.decorator_list:
                if (isinstance(decorator, ast.Name) and decorator.id in ("property", "cached_property")) or (
                    isinstance(decorator, ast.Attribute) and decorator.attr in ("setter", "deleter")
                ):
                    out.add(item.name)
    return out


def attributes(cls: ast.ClassDef) -> set[str]:
    """The attributes of ``cls``: every ``self.name`` its methods assign (``=``, ``:``, augmented or
    in a tuple), and its annotated class-level fields (a dataclass's), its properties aside."""
    names = {s.target.id for s in cls.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)}
    for node in ast.walk(cls):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.ctx, ast.Store)
            and isinstance(node.value, ast.Name)
            and node.value.id == "self"
        ):
            names.add(node.attr)
    return names - _properties(cls)


def breaches(source: str, where: str) -> list[str]:
    """What in ``source`` (a module's text, at ``where``) breaks a size rule, one line each."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            lines = (node.end_lineno or node.lineno) - node.lineno + 1
            if lines > MAX_FUNCTION_LINES:
                out.append(f"{where}:{node.lineno} {node.name}() is {lines} lines (at most {MAX_FUNCTION_LINES})")
        elif isinstance(node, ast.ClassDef):
            count = len(attributes(node))
            if count > MAX_ATTRIBUTES:
                out.append(f"{where}:{node.lineno} class {node.name} has {count} attributes (at most {MAX_ATTRIBUTES})")
    return out


def test_the_rules_catch_a_long_function_and_a_crowded_class():
    long = "def f():\n" + "    x = 1\n" * MAX_FUNCTION_LINES
    assert breaches(long, "m.py") == [f"m.py:1 f() is {MAX_FUNCTION_LINES + 1} lines (at most 60)"]
    assert breaches("def f():\n" + "    x = 1\n" * (MAX_FUNCTION_LINES - 1), "m.py") == []
    stores = "".join(f"        self.a{i} = {i}\n" for i in range(MAX_ATTRIBUTES))
    crowded = f"class C:\n    b: int = 0\n    def __init__(self):\n{stores}"
    assert breaches(crowded, "m.py") == ["m.py:1 class C has 21 attributes (at most 20)"]
    with_property = crowded.replace("    b: int = 0\n", "") + "    @property\n    def a0(self):\n        return 0\n"
    assert attributes(ast.parse(with_property).body[0]) == {f"a{i}" for i in range(1, MAX_ATTRIBUTES)}  # type: ignore[arg-type]


def test_no_function_in_src_is_over_60_lines_and_no_class_has_over_20_attributes():
    found = [line for path in _sources() for line in breaches(path.read_text(), str(path.relative_to(SRC)))]
    assert _sources() and found == []
