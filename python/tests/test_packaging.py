"""The package as installed: dependency ranges (not exact pins) with CI's exact versions in
its lock, ``py.typed`` and the extension's stubs shipped beside it, and the stubs naming
every public function and parameter of the compiled module."""

from __future__ import annotations

import ast
import importlib.metadata
import inspect
import pathlib
import tomllib

from packaging.requirements import Requirement

import ssdlab
from ssdlab import _ssdlab
from conftest import REPO

PYPROJECT = REPO / "python" / "pyproject.toml"
LOCK = REPO / "python" / "ci-constraints.txt"


def requirements() -> list[Requirement]:
    """Every requirement pyproject.toml states: build, runtime and extras."""
    project = tomllib.loads(PYPROJECT.read_text())
    texts = list(project["build-system"]["requires"]) + list(project["project"]["dependencies"])
    for extra in project["project"]["optional-dependencies"].values():
        texts += extra
    return [Requirement(t) for t in texts]


def lock() -> dict[str, str]:
    """CI's lock: package name (normalised) → exact version."""
    pins = {}
    for line in LOCK.read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, version = line.split("==")
            pins[name.lower().replace("_", "-")] = version
    return pins


def test_dependencies_are_ranges_and_ci_pins_each_inside_its_range():
    reqs = requirements()
    assert {r.name for r in reqs} >= {"maturin", "pandas", "pyarrow", "matplotlib", "ray", "pytest"}
    pins = lock()
    for r in reqs:
        operators = {s.operator for s in r.specifier}
        assert operators and not operators & {"==", "==="}, f"{r}: a range, not an exact pin"
        assert ">=" in operators, f"{r}: states its oldest version"
        assert r.name in pins, f"{r.name} is not pinned in {LOCK.name}"
        assert r.specifier.contains(pins[r.name]), f"{LOCK.name} pins {r.name}=={pins[r.name]}, outside {r}"


def test_the_installed_dependencies_satisfy_the_ranges():
    project = tomllib.loads(PYPROJECT.read_text())["project"]
    assert project["requires-python"] == ">=3.11"
    for text in project["dependencies"] + project["optional-dependencies"]["test"]:
        r = Requirement(text)
        assert r.specifier.contains(importlib.metadata.version(r.name)), r


def test_py_typed_and_the_stubs_ship_with_the_module():
    package = pathlib.Path(ssdlab.__file__).parent
    assert (package / "py.typed").is_file()
    assert pathlib.Path(_ssdlab.__file__).with_name("_ssdlab.pyi").is_file()


def stub_module() -> ast.Module:
    return ast.parse(pathlib.Path(_ssdlab.__file__).with_name("_ssdlab.pyi").read_text())


def test_the_stubs_name_every_public_function_with_its_parameters():
    tree = stub_module()
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    values = {n.target.id for n in tree.body if isinstance(n, ast.AnnAssign)}
    public = {n for n in dir(_ssdlab) if not n.startswith("_")} | {"__version__"}
    assert set(functions) | set(classes) | values == public
    assert isinstance(_ssdlab.__version__, str) and "__version__" in values
    assert [b.id for b in classes["SsdlabError"].bases] == ["ValueError"]
    assert issubclass(_ssdlab.SsdlabError, ValueError)
    for name, stub in functions.items():
        real = inspect.signature(getattr(_ssdlab, name))
        assert [a.arg for a in stub.args.args] == list(real.parameters), name
        # The same parameters have defaults, and each default both write out is the same
        # (the module shows a computed default, such as a String or a Vec, as `...`).
        args = [a.arg for a in stub.args.args]
        stub_defaults = dict(zip(args[len(args) - len(stub.args.defaults):], stub.args.defaults))
        real_defaults = {k: p.default for k, p in real.parameters.items() if p.default is not inspect.Parameter.empty}
        assert set(stub_defaults) == set(real_defaults), name
        for arg, node in stub_defaults.items():
            value = ast.literal_eval(node)
            if value is not Ellipsis and real_defaults[arg] is not Ellipsis:
                assert real_defaults[arg] == value, f"{name}({arg}=...)"
