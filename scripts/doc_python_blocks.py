#!/usr/bin/env python3
"""Runs every ```python block of README.md and docs/*.md with the installed crawlsift package.

The Python half of tests/doc_blocks.rs (which runs the console and sh blocks): each file's blocks
run in order, each as its own script, in one fresh temporary folder where data/ is the repository's
data/, so `crawlsift.records("data/sample.warc.gz")` reads the sample as the README says. A block
fails on any exception (an `assert` in it checks what it computes). Exits 1 naming every failed
block (file and line of its fence). The Python gate (scripts/ci-gates/python.sh) runs it with the
virtual environment the package was installed into.

usage: PYTHON scripts/doc_python_blocks.py [--root DIR]
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

FENCE = re.compile(r'^\s*(```|~~~)\s*(\S*)')


def python_blocks(path):
    """(line of the opening fence, code) of every ```python block of one Markdown file."""
    out, open_at, marker, lang, body = [], None, None, None, []
    with open(path, encoding='utf-8') as f:
        for no, line in enumerate(f, 1):
            m = FENCE.match(line)
            if open_at is None:
                if m:
                    open_at, marker, lang, body = no, m.group(1), m.group(2), []
            elif m and line.strip() == marker:
                if lang == 'python':
                    out.append((open_at, ''.join(body)))
                open_at = None
            else:
                body.append(line)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--root', default=os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
    root = os.path.abspath(ap.parse_args().root)
    docs = os.path.join(root, 'docs')
    files = [os.path.join(root, 'README.md')]
    if os.path.isdir(docs):
        files += sorted(os.path.join(docs, f) for f in os.listdir(docs) if f.endswith('.md'))
    failed, ran = [], 0
    for path in files:
        rel = os.path.relpath(path, root)
        with tempfile.TemporaryDirectory() as tmp:
            os.symlink(os.path.join(root, 'data'), os.path.join(tmp, 'data'))
            for line, code in python_blocks(path):
                ran += 1
                r = subprocess.run([sys.executable, '-c', code], cwd=tmp, capture_output=True,
                                   text=True, timeout=300)
                if r.returncode != 0:
                    failed.append(f'{rel}:{line}: exit {r.returncode}\n{r.stdout}{r.stderr}')
    for f in failed:
        print(f, file=sys.stderr)
    print(f'doc_python_blocks: {ran} block(s), {len(failed)} failed')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
