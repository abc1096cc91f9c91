"""Short display names of kernels (:func:`short_name`, :func:`display_names`).

Demangled kernel names of templated code run to many kilobytes
(``void gt::detail::kernel_assign_6<gt::gview<...>, ...>(...)``).  A region
is shown under the function's own name (``kernel_assign_6``): the return
type, the namespaces, the template arguments and the parameter list
dropped, and the code-object suffix AMD's tools add (``vecCopy(double*, int)
[clone .kd]``, ``k.kd``).  Kernels whose short names coincide (instances of one template)
are numbered ``#1``, ``#2``, ... in order of first appearance; the full name
stays in :attr:`LikwidRun.full_names <roofline_widget.model.LikwidRun.full_names>`.
Every scan is one pass over the name.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["MAX_SHORT", "display_names", "short_name"]

#: The longest short name; longer ones (mangled names, say) are cut with "...".
MAX_SHORT = 60
# AMD's kernel descriptor suffixes: "[clone .kd]" after the parameters, ".kd" after the name.
_CODE_OBJECT = re.compile(r"(?:\s*\[clone [^\]]*\])+\s*$|\.kd$")


def _drop_parameters(name: str) -> str:
    """``name`` without the parenthesised group that ends it (the parameter list)."""
    if not name.endswith(")"):
        return name
    depth = 0
    for index in range(len(name) - 1, -1, -1):
        char = name[index]
        if char == ")":
            depth += 1
        elif char == "(":
            depth -= 1
            if depth == 0:
                return name[:index] if index else name
    return name


def _drop_templates(name: str) -> str:
    """``name`` without what its angle brackets enclose (outside parentheses too)."""
    kept, depth = [], 0
    for char in name:
        if char == "<":
            depth += 1
        elif char == ">" and depth:
            depth -= 1
        elif not depth:
            kept.append(char)
    return "".join(kept)


def _last_word(name: str) -> str:
    """The last space-separated word outside parentheses (drops the return type)."""
    depth, start = 0, 0
    for index, char in enumerate(name):
        if char == "(":
            depth += 1
        elif char == ")" and depth:
            depth -= 1
        elif char == " " and not depth:
            start = index + 1
    return name[start:]


def short_name(full: str) -> str:
    """The function name of a demangled kernel name.

    Examples
    --------
    >>> short_name("void gt::detail::kernel_assign_6<gt::gview<double, 6>, int>(gt::gview<double, 6>, int)")
    'kernel_assign_6'
    >>> short_name("void (anonymous namespace)::scale(double*, int)")
    'scale'
    >>> short_name("saxpy")
    'saxpy'
    >>> short_name("vecCopy(double*, double*, double*, int, int) [clone .kd]")
    'vecCopy'
    """
    text = _CODE_OBJECT.sub("", full.strip()).strip() or full.strip()
    base = _last_word(_drop_templates(_drop_parameters(text)).strip())
    short = base.rsplit("::", 1)[-1].strip() or text
    return short if len(short) <= MAX_SHORT else short[:MAX_SHORT - 3] + "..."


def display_names(full_names: Iterable[str]) -> dict[str, str]:
    """Full kernel name -> unique display name, in order of first appearance.

    Examples
    --------
    >>> display_names(["void k<int>(int)", "void k<double>(double)", "void j()"])
    {'void k<int>(int)': 'k #1', 'void k<double>(double)': 'k #2', 'void j()': 'j'}
    """
    fulls = list(dict.fromkeys(full_names))
    shorts = {full: short_name(full) for full in fulls}
    variants: dict[str, list[str]] = {}
    for full in fulls:
        variants.setdefault(shorts[full], []).append(full)
    names = {}
    for short, group in variants.items():
        if len(group) == 1:
            names[group[0]] = short
        else:
            names.update((full, f"{short} #{number}") for number, full in enumerate(group, 1))
    taken = set()
    for full, name in names.items():  # a kernel literally named "k #1" beside k<int>, k<double>
        while name in taken:
            name += "'"
        names[full] = name
        taken.add(name)
    return {full: names[full] for full in fulls}
