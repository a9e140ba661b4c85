#!/usr/bin/env python3
"""Checks the source structure of every crate: no import cycle between files, no oversized file.

For each crate (every folder under crates/ with a src/, and the root package's src/) it builds the
file-level module graph from `use crate::...`, `crate::path` and `super::...` references (a module
path maps to `foo.rs` or `foo/mod.rs`; `self::` and bare `mod` children count too) and reports every
strongly connected component of more than one file (an import circle). It also reports any .rs file
under a crate's src/ over 800 lines, and any file of the root package's src/ over 400 lines.

It also checks ARCHITECTURE.md against the manifests: its crate table's "depends on" column must
name, for every workspace crate, exactly the workspace crates in that crate's `[dependencies]`
(dev- and build-dependencies aside), by their short names (`crawlsift-reader` is `reader`; the
root package is `crawlsift`; "nothing" for none), and every workspace crate must have a row.

Exits 1 when anything is reported. Standard library only.

usage: scripts/check_structure.py [--only crates/reader] [--root DIR]
"""

import argparse
import os
import re
import sys

MAX_LINES = 800
MAX_LINES_ROOT_SRC = 400

# Comments and string/char literals are blanked before scanning, so a path in a doc comment or a
# message is not an edge.
TOKEN = re.compile(
    r'//[^\n]*'  # line comment (incl. doc comments)
    r'|/\*.*?\*/'  # block comment (not nested; good enough for this code base)
    r'|b?r(#*)".*?"\1'  # raw string
    r'|b?"(?:\\.|[^"\\])*"'  # string
    r"|b?'(?:\\.|[^'\\])'",  # char / byte literal (lifetimes are left alone)
    re.S,
)
PATH_START = re.compile(r'\b(crate|super|self)\s*::')
IDENT = re.compile(r'[A-Za-z_][A-Za-z0-9_]*')
MOD_DECL = re.compile(r'^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+([A-Za-z_][A-Za-z0-9_]*)\s*;', re.M)
PATH_ATTR = re.compile(r'#\[path\s*=')


def strip(text):
    def blank(m):
        s = m.group(0)
        return re.sub(r'[^\n]', ' ', s)

    return TOKEN.sub(blank, text)


class Crate:
    """The module tree of one crate: module path (tuple of names) <-> file."""

    def __init__(self, src_dir, root_file):
        self.src = src_dir
        self.root = root_file
        self.mod_of = {}  # file -> module path tuple
        self.file_of = {}  # module path tuple -> file
        self._walk(root_file, ())

    def _walk(self, path, modpath):
        if path in self.mod_of:
            return
        self.mod_of[path] = modpath
        self.file_of[modpath] = path
        with open(path, encoding='utf-8') as f:
            code = strip(f.read())
        base = os.path.dirname(path)
        name = os.path.basename(path)
        # Children of `foo.rs` live in `foo/`, of `mod.rs`/`lib.rs`/`main.rs` next to it.
        if name not in ('mod.rs', 'lib.rs', 'main.rs'):
            base = os.path.join(base, name[:-3])
        for m in MOD_DECL.finditer(code):
            child = m.group(1)
            for cand in (os.path.join(base, child + '.rs'), os.path.join(base, child, 'mod.rs')):
                if os.path.isfile(cand):
                    self._walk(cand, modpath + (child,))
                    break

    def resolve(self, modpath):
        """The file holding the longest prefix of `modpath` that is a file module."""
        for k in range(len(modpath), -1, -1):
            f = self.file_of.get(tuple(modpath[:k]))
            if f is not None:
                return f
        return self.root


def expand(code, i, prefix):
    """Segments after `prefix::` starting at code[i]; `{a, b::c}` groups give several paths."""
    segs = list(prefix)
    n = len(code)
    while True:
        while i < n and code[i].isspace():
            i += 1
        if i < n and code[i] == '{':
            depth, j, start, parts = 1, i + 1, i + 1, []
            while j < n and depth:
                if code[j] == '{':
                    depth += 1
                elif code[j] == '}':
                    depth -= 1
                elif code[j] == ',' and depth == 1:
                    parts.append(code[start:j])
                    start = j + 1
                j += 1
            parts.append(code[start:j - 1])
            res = []
            for p in parts:
                p = p.strip()
                if not p:
                    continue
                if p == 'self':
                    res.append(segs)
                    continue
                res.extend(expand(p, 0, segs) if p[0] == '{' else expand_text(p, segs))
            return res or [segs]
        m = IDENT.match(code, i)
        if not m:
            return [segs]
        segs.append(m.group(0))
        i = m.end()
        rest = code[i:i + 64]
        k = len(rest) - len(rest.lstrip())
        if rest[k:k + 2] == '::':
            i += k + 2
            continue
        return [segs]


def expand_text(p, segs):
    # `a::b::{c, d}` or `a::b` or `a as x` inside a group.
    p = re.sub(r'\s+as\s+\w+\s*$', '', p)
    return expand(p, 0, segs)


def inline_spans(code):
    """(start, end) of the bodies of inline modules (`mod tests { ... }`) in stripped code."""
    spans = []
    for m in re.finditer(r'\bmod\s+[A-Za-z_]\w*\s*\{', code):
        depth, j = 1, m.end()
        while j < len(code) and depth:
            if code[j] == '{':
                depth += 1
            elif code[j] == '}':
                depth -= 1
            j += 1
        spans.append((m.end(), j))
    return spans


def edges(crate, path):
    """Files that `path` refers to through crate/super/self paths (itself excluded)."""
    with open(path, encoding='utf-8') as f:
        code = strip(f.read())
    mine = list(crate.mod_of[path])
    spans = inline_spans(code)
    found = set()
    for m in PATH_START.finditer(code):
        # Inline modules enclosing this path: `super::`/`self::` first move within them.
        depth = sum(1 for a, b in spans if a <= m.start() < b)
        for segs in expand(code, m.end(), [m.group(1)]):
            kw, rest = segs[0], list(segs[1:])
            if kw == 'crate':
                target = rest
            elif kw == 'self':
                if depth:
                    continue  # within this file
                target = mine + rest
            else:
                up = 1
                while rest and rest[0] == 'super':
                    up += 1
                    rest = rest[1:]
                up -= depth
                if up <= 0:
                    continue  # within this file
                target = mine[:max(0, len(mine) - up)] + rest
            found.add(crate.resolve(target))
    found.discard(path)
    return found


def sccs(graph):
    """Tarjan's strongly connected components (iterative)."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]
    for v0 in sorted(graph):
        if v0 in index:
            continue
        work = [(v0, iter(sorted(graph[v0])))]
        index[v0] = low[v0] = counter[0]
        counter[0] += 1
        stack.append(v0)
        on.add(v0)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                    advanced = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                out.append(sorted(comp))
    return out


def cycle_in(graph, comp):
    """One concrete circle through the component, for the message."""
    comp_set = set(comp)
    start = comp[0]
    prev = {start: None}
    queue = [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(graph[v]):
            if w not in comp_set:
                continue
            if w == start:
                path = [v]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return list(reversed(path)) + [start]
            if w not in prev:
                prev[w] = v
                queue.append(w)
    return comp + [comp[0]]


def crates(root, only):
    found = []
    cdir = os.path.join(root, 'crates')
    if os.path.isdir(cdir):
        for name in sorted(os.listdir(cdir)):
            found.append(os.path.join('crates', name))
    if os.path.isdir(os.path.join(root, 'src')):
        found.append('.')
    if only:
        want = os.path.normpath(only)
        found = [c for c in found if os.path.normpath(c) == want]
        if not found:
            sys.exit(f'check_structure: no crate at {only}')
    return found


def manifest(path):
    """(package name, workspace-path dependency names of [dependencies]) of one Cargo.toml.

    A small reader of the shapes this workspace uses (`name.workspace = true`,
    `name = { ... }`, `[dependencies.name]`), so the script keeps to the standard library."""
    name, deps, section = None, [], None
    with open(path, encoding='utf-8') as f:
        for raw in f:
            line = raw.split('#', 1)[0].strip()
            if not line:
                continue
            m = re.match(r'^\[([^\]]+)\]$', line)
            if m:
                section = m.group(1).strip()
                if section.startswith('dependencies.'):
                    deps.append(section[len('dependencies.'):].strip('"'))
                continue
            key = line.split('=', 1)[0].strip().strip('"')
            if section == 'package' and key == 'name':
                name = line.split('=', 1)[1].strip().strip('"')
            elif section == 'dependencies':
                deps.append(key.split('.', 1)[0].strip('"'))
    return name, deps


def short(package):
    """A crate's name in ARCHITECTURE.md's table: `crawlsift-reader` is `reader`."""
    return package[len('crawlsift-'):] if package.startswith('crawlsift-') else package


def architecture_problems(root):
    """Where ARCHITECTURE.md's crate table ("depends on") differs from the manifests."""
    arch = os.path.join(root, 'ARCHITECTURE.md')
    if not os.path.isfile(arch):
        return ['ARCHITECTURE.md: missing']
    # Workspace crates: folder (as the table names it) -> (package name, dependencies).
    crates_found = {}
    cdir = os.path.join(root, 'crates')
    for d in sorted(os.listdir(cdir)) if os.path.isdir(cdir) else []:
        toml = os.path.join(cdir, d, 'Cargo.toml')
        if os.path.isfile(toml):
            crates_found[f'crates/{d}'] = manifest(toml)
    crates_found['.'] = manifest(os.path.join(root, 'Cargo.toml'))
    ours = {short(pkg) for pkg, _ in crates_found.values() if pkg}
    problems, seen = [], set()
    with open(arch, encoding='utf-8') as f:
        lines = f.read().splitlines()
    header = None
    for no, line in enumerate(lines, 1):
        cells = [c.strip() for c in line.strip().strip('|').split('|')] if line.lstrip().startswith('|') else None
        if not cells:
            header = None
            continue
        if header is None:
            low = [c.lower() for c in cells]
            if 'depends on' in low:
                header = low.index('depends on')
            continue
        if set(line.replace('|', '').strip()) <= set('-: '):
            continue  # the separator row
        first = cells[0]
        m = re.search(r'`(crates/[A-Za-z0-9_-]+)`', first)
        where = m.group(1) if m else ('.' if 'root' in first else None)
        if where is None or where not in crates_found or header >= len(cells):
            problems.append(f'ARCHITECTURE.md:{no}: a crate row naming no workspace crate: {first}')
            continue
        seen.add(where)
        pkg, deps = crates_found[where]
        actual = {short(d) for d in deps if short(d) in ours}
        cell = cells[header].replace('`', '')
        words = [w.strip() for w in cell.split(',') if w.strip()]
        declared = set() if words == ['nothing'] else set(words)
        if declared != actual:
            detail = []
            if actual - declared:
                detail.append('Cargo.toml also has ' + ', '.join(sorted(actual - declared)))
            if declared - actual:
                detail.append('Cargo.toml does not have ' + ', '.join(sorted(declared - actual)))
            problems.append(
                f'ARCHITECTURE.md:{no}: {pkg} "depends on" says '
                f'{", ".join(sorted(declared)) or "nothing"} but {where}/Cargo.toml [dependencies] '
                f'has {", ".join(sorted(actual)) or "nothing"} ({"; ".join(detail)})')
    for where in sorted(set(crates_found) - seen):
        problems.append(f'ARCHITECTURE.md: no row in the crate table for {where} ({crates_found[where][0]})')
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--only', help='check one crate, e.g. crates/reader (or . for the root package)')
    ap.add_argument('--root', default=os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
    args = ap.parse_args()
    root = os.path.abspath(args.root)
    failed = False
    if not args.only:
        problems = architecture_problems(root)
        if problems:
            failed = True
            print('ARCHITECTURE.md crate table: FAIL')
            for p in problems:
                print(f'  {p}')
        else:
            print('ARCHITECTURE.md crate table: ok')
    for c in crates(root, args.only):
        src = os.path.join(root, c, 'src')
        if not os.path.isdir(src):
            continue
        rel = lambda p: os.path.relpath(p, root)
        # Every target root of the crate: lib.rs, main.rs, src/bin/*.rs.
        roots = [os.path.join(src, f) for f in ('lib.rs', 'main.rs') if os.path.isfile(os.path.join(src, f))]
        bindir = os.path.join(src, 'bin')
        if os.path.isdir(bindir):
            roots += [os.path.join(bindir, f) for f in sorted(os.listdir(bindir)) if f.endswith('.rs')]
        problems = []
        for r in roots:
            crate = Crate(src, r)
            graph = {f: edges(crate, f) for f in crate.mod_of}
            for comp in sccs(graph):
                if len(comp) > 1:
                    circle = ' -> '.join(rel(f) for f in cycle_in(graph, comp))
                    problems.append(
                        f'import cycle ({len(comp)} files: {", ".join(rel(f) for f in comp)}): {circle}')
        limit_root = c == '.'
        for dirpath, _, files in os.walk(src):
            for f in sorted(files):
                if not f.endswith('.rs'):
                    continue
                p = os.path.join(dirpath, f)
                with open(p, encoding='utf-8', errors='replace') as fh:
                    n = sum(1 for _ in fh)
                limit = MAX_LINES_ROOT_SRC if limit_root else MAX_LINES
                if n > limit:
                    problems.append(f'{rel(p)}: {n} lines (limit {limit})')
        name = 'src (root package)' if c == '.' else c
        if problems:
            failed = True
            print(f'{name}: FAIL')
            for p in dict.fromkeys(problems):
                print(f'  {p}')
        else:
            print(f'{name}: ok')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
