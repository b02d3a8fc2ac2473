#!/usr/bin/env python3
"""Lists the `crate::` module dependencies of a crate's src/ and the import circles among them.

Usage: scripts/module-deps.py [CRATE_SRC] [--depth N] [--check]
  CRATE_SRC  the crate's src directory (default: harness/src)
  --depth N  group modules to N path segments (default 1: `cli`, `run`, `scenario`; 2 also
             separates `cli::args` from `cli::overrides`, and puts run/host/quinn.rs in
             `run::host`)
  --check    exit 1 if any circle exists (CI uses this)

A module depends on another when its code (comments aside) names it as `crate::a::b` (in a
`use` or a path) or, inside a module directory, as `super::x` or `self::x`. Directories nest to
any depth: a file's module is its path (run/host/quinn.rs is `run::host::quinn`; a mod.rs is
its directory's). A mod.rs's re-export of its children by bare path (`pub use model::Grid` in
scenario/mod.rs) is not an edge, so the children import one another by their own paths
(`crate::scenario::model::Grid`), never through the re-export. Test modules count too: a circle
through a test is still a circle in the file graph. Circles are the strongly connected
components with more than one module (Tarjan), each printed with the edges that close it.
"""
import re
import sys
from pathlib import Path


def module_of(src: Path, file: Path) -> list[str]:
    parts = list(file.relative_to(src).with_suffix("").parts)
    if parts[-1] in ("mod", "lib", "main"):
        parts = parts[:-1]
    return parts


def referenced(text: str, here: list[str]) -> set[tuple[str, ...]]:
    """Module paths a file names, as full paths from the crate root."""
    out = set()
    # `use crate::{a, b::c}` groups: expand one level of braces.
    for m in re.finditer(r"crate::\{([^}]*)\}", text):
        for item in m.group(1).split(","):
            item = item.strip()
            if item:
                out.add(tuple(re.split(r"::", re.sub(r"\{.*", "", item))))
    for m in re.finditer(r"crate((?:::[a-z_][a-z0-9_]*)+)", text):
        out.add(tuple(m.group(1).strip(":").split("::")))
    parent = here[:-1] if here else []
    for m in re.finditer(r"\bsuper((?:::[a-z_][a-z0-9_]*)+)", text):
        out.add(tuple(parent + m.group(1).strip(":").split("::")))
    for m in re.finditer(r"\bself((?:::[a-z_][a-z0-9_]*)+)", text):
        out.add(tuple(here + m.group(1).strip(":").split("::")))
    return out


def usage(message: str) -> int:
    print(f"module-deps.py: {message}", file=sys.stderr)
    print(__doc__.strip().splitlines()[0] if __doc__ else "", file=sys.stderr)
    return 2


def main() -> int:
    args = sys.argv[1:]
    check = "--check" in args
    depth = 1
    if "--depth" in args:
        at = args.index("--depth") + 1
        try:
            depth = int(args[at])
        except (IndexError, ValueError):
            return usage("--depth takes a whole number from 1 up")
        if depth < 1:
            return usage(f"--depth {depth}: it must be 1 or more")
    unknown = [a for a in args if a.startswith("--") and a not in ("--check", "--depth")]
    if unknown:
        return usage(f"unknown option {unknown[0]} (options: --depth N, --check)")
    positional = [a for i, a in enumerate(args) if not a.startswith("--") and (i == 0 or args[i - 1] != "--depth")]
    if len(positional) > 1:
        return usage(f"one source directory, not {len(positional)}: {' '.join(positional)}")
    if positional and not positional[0]:
        return usage("an empty source directory would mean the working directory; give a path")
    src = Path(positional[0] if positional else "harness/src")
    if not src.is_dir():
        return usage(f"{src} is not a directory (give a crate's src directory)")
    files = sorted(src.rglob("*.rs"))
    if not files:
        return usage(f"{src} holds no .rs file: nothing to check")
    modules = {tuple(module_of(src, f)) for f in files}

    def resolve(path: tuple[str, ...]) -> tuple[str, ...] | None:
        # The longest prefix that is a module file: `crate::cli::args::Args` -> cli::args.
        for n in range(len(path), 0, -1):
            if path[:n] in modules:
                return path[:n]
        return None

    def group(m: tuple[str, ...]) -> str:
        return "::".join(m[:depth]) or "crate"

    edges: dict[str, set[str]] = {}
    for f in files:
        here = module_of(src, f)
        a = group(tuple(here))
        edges.setdefault(a, set())
        # Comments (docs' intra-doc links included) are not imports.
        try:
            text = f.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            return usage(f"{f}: not readable as UTF-8 Rust source ({e})")
        code = re.sub(r"//[^\n]*", "", text)
        for path in referenced(code, here):
            target = resolve(path)
            if target is None:
                continue
            b = group(target)
            if b != a and b != "crate":
                edges[a].add(b)

    for a in sorted(edges):
        print(f"{a} -> {', '.join(sorted(edges[a])) or '(nothing)'}")

    # Tarjan's strongly connected components.
    index, low, on_stack, stack, sccs = {}, {}, set(), [], []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                sccs.append(sorted(component))

    sys.setrecursionlimit(10000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    print()
    if not sccs:
        print(f"no import circle among {len(edges)} modules of {src} (depth {depth})")
        return 0
    for c in sccs:
        inside = [f"{a} -> {b}" for a in c for b in sorted(edges[a]) if b in c]
        print(f"CIRCLE: {' / '.join(c)}  ({'; '.join(inside)})")
    return 1 if check else 0


if __name__ == "__main__":
    sys.exit(main())
