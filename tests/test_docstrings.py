"""`help(Encoder)` and `Encoder?` show encoderlib's own words, never torch's.

A method a class defines without a docstring inherits its parent's through
`inspect.getdoc`: an `nn.Module` subclass's bare `__init__` reads "Initialize
internal Module state, shared by both nn.Module and ScriptModule." and a bare
`extra_repr` reads torch's advice to module authors. These tests ask every public
class for its own text on every method it defines that a reader will see.
"""

import dataclasses
import importlib
import inspect
import pkgutil

import pytest
import torch.nn as nn

import encoderlib

# Methods a reader meets through help() or IPython's `?`; private helpers are exempt.
SHOWN_DUNDERS = {"__init__", "__call__", "__iter__", "__len__", "__getitem__"}


def _public_classes() -> list[tuple[str, type]]:
    found = []
    for info in pkgutil.iter_modules(encoderlib.__path__):
        module = importlib.import_module(f"encoderlib.{info.name}")
        for name in getattr(module, "__all__", []):
            obj = getattr(module, name)
            if inspect.isclass(obj) and obj.__module__ == module.__name__:
                found.append((f"{info.name}.{name}", obj))
    return found


def _generated_init(cls: type) -> bool:
    """Dataclasses and NamedTuples write their own __init__: its signature says it."""
    return dataclasses.is_dataclass(cls) or hasattr(cls, "_fields")


def _function(value: object) -> object:
    # inspect.getdoc would fall back to the parent's text: read the function's own.
    return value.__func__ if isinstance(value, (staticmethod, classmethod)) else value


def _shown_methods(cls: type) -> list[str]:
    names = []
    for attr, value in vars(cls).items():
        value = _function(value)
        if not inspect.isfunction(value):
            continue
        if attr.startswith("_") and attr not in SHOWN_DUNDERS:
            continue
        if attr == "__init__" and _generated_init(cls):
            continue
        names.append(attr)
    return names


CLASSES = _public_classes()


def test_there_are_public_classes():
    assert len(CLASSES) >= 20, [name for name, _ in CLASSES]


@pytest.mark.parametrize("qualname, cls", CLASSES, ids=[q for q, _ in CLASSES])
def test_every_shown_method_has_its_own_docstring(qualname, cls):
    bare = [
        attr
        for attr in _shown_methods(cls)
        if not (_function(vars(cls)[attr]).__doc__ or "").strip()
    ]
    assert not bare, f"{qualname}: methods without their own docstring: {bare}"


@pytest.mark.parametrize("qualname, cls", CLASSES, ids=[q for q, _ in CLASSES])
def test_help_shows_no_torch_boilerplate(qualname, cls):
    text = inspect.getdoc(cls.__init__) or ""
    assert "Initialize internal Module state" not in text, qualname
    if issubclass(cls, nn.Module):
        assert "re-implement this method in your own modules" not in (
            inspect.getdoc(cls.extra_repr) or ""
        ), f"{qualname}.extra_repr shows torch's docstring"


def test_a_bare_method_is_caught():
    class Bare(nn.Module):
        """A module with a bare __init__."""

        def __init__(self):
            super().__init__()

    assert _shown_methods(Bare) == ["__init__"]
    assert not (vars(Bare)["__init__"].__doc__ or "").strip()
