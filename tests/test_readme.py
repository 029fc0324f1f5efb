"""README.md runs as written.

Every ```python block of the README runs, in order, in one fresh Python
process and one namespace, as a reader following the README in a notebook
would run them: each block is its own file (`readme_block_N.py`), so line
numbers in generated code count from the block's first line, like a
notebook cell's. A ```python block that directly follows a line reading
`prints` is not run: it is the output the block before it must print,
compared exactly (trailing blank lines aside).

When a change to code generation changes what the README shows, regenerate
the expected output from what the code prints (never by hand):

    python tests/test_readme.py --update

The README's rule counts are checked against `python -m adsrc rules`, and
the constructs its "What does not work" section lists as refused are
checked to be refused.
"""

import difflib
import json
import pathlib
import re
import subprocess
import sys
import textwrap

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
FENCE = re.compile(r"^(\s*)```(\w*)\s*$")


class Block:
    def __init__(self, lang, start, end, text, expected_of=None):
        self.lang = lang              # the fence's info string: python, bash, ''
        self.start = start            # line index of the opening fence
        self.end = end                # line index of the closing fence
        self.text = text
        self.expected_of = expected_of   # for an output block: the index of the code block it belongs to

    @property
    def lineno(self):
        return self.start + 1


def parse(text):
    """The fenced blocks of a Markdown text, output blocks linked to the code blocks they follow."""
    lines = text.split("\n")
    blocks, i = [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        j = i + 1
        while j < len(lines) and lines[j].strip() != "```":
            j += 1
        if j == len(lines):
            raise AssertionError(f"README.md line {i + 1}: a code block is never closed")
        prev = next((lines[k].strip() for k in range(i - 1, -1, -1) if lines[k].strip()), "")
        indent = len(m.group(1))         # a block inside a list item is indented: its code is not
        block = Block(m.group(2), i, j, "\n".join(line[indent:] for line in lines[i + 1:j]) + "\n")
        if prev == "prints":
            code = [b for b in blocks if b.lang == "python" and b.expected_of is None]
            if not code:
                raise AssertionError(f"README.md line {i + 1}: an output block follows no Python block")
            block.expected_of = blocks.index(code[-1])
        blocks.append(block)
        i = j + 1
    return blocks


DRIVER = textwrap.dedent('''
    import contextlib, io, json, pathlib, sys, traceback
    workdir = pathlib.Path(sys.argv[1])
    sys.path.insert(0, sys.argv[2])
    blocks = json.loads((workdir / "blocks.json").read_text())
    namespace = {"__name__": "__main__"}
    results = []
    for k, (lineno, text) in enumerate(blocks):
        path = workdir / f"readme_block_{k + 1}.py"
        path.write_text(text)
        out = io.StringIO()
        try:
            with contextlib.redirect_stdout(out):
                exec(compile(text, str(path), "exec"), namespace)
        except BaseException:
            results.append({"lineno": lineno, "stdout": out.getvalue(), "error": traceback.format_exc()})
            break
        results.append({"lineno": lineno, "stdout": out.getvalue(), "error": None})
    print(json.dumps(results))
''')


def run_blocks(blocks, workdir):
    """Run the Python code blocks in one fresh process: [{lineno, stdout, error}] per block run."""
    code = [b for b in blocks if b.lang == "python" and b.expected_of is None]
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "blocks.json").write_text(json.dumps([(b.lineno, b.text) for b in code]))
    (workdir / "driver.py").write_text(DRIVER)
    proc = subprocess.run([sys.executable, str(workdir / "driver.py"), str(workdir), str(ROOT)],
                          capture_output=True, text=True, timeout=600, cwd=str(workdir))
    if proc.returncode != 0:
        raise AssertionError(f"the README driver failed:\n{proc.stderr}")
    results = json.loads(proc.stdout.strip().splitlines()[-1])
    return {b.lineno: r for b, r in zip(code, results)}


def _outputs(blocks):
    return [b for b in blocks if b.expected_of is not None]


def test_readme_python_blocks_run_and_print_what_the_readme_shows(tmp_path):
    blocks = parse(README.read_text())
    code = [b for b in blocks if b.lang == "python" and b.expected_of is None]
    assert len(code) >= 4 and _outputs(blocks), "the README should show runnable code and its output"
    results = run_blocks(blocks, tmp_path)
    for b in code:
        r = results.get(b.lineno)
        assert r is not None, f"README.md line {b.lineno}: the block did not run (an earlier block failed)"
        assert r["error"] is None, f"README.md line {b.lineno}: the block raised:\n{r['error']}"
    for out in _outputs(blocks):
        source = blocks[out.expected_of]
        got = results[source.lineno]["stdout"].rstrip("\n")
        want = out.text.rstrip("\n")
        if got != want:
            diff = "\n".join(difflib.unified_diff(want.splitlines(), got.splitlines(), "README.md", "printed",
                                                  lineterm=""))
            raise AssertionError(f"README.md line {out.lineno}: the output shown is not what the block at line "
                                 f"{source.lineno} prints (regenerate it with `python tests/test_readme.py "
                                 f"--update`):\n{diff}")


def test_the_parser_finds_every_block_and_the_output_it_shows():
    text = "intro\n\n```python\nprint(1)\n```\n\nprints\n\n```text\n1\n```\n\n* a list item:\n\n" \
           "  ```python\n  x = 2\n  ```\n\n```bash\nls\n```\n"
    blocks = parse(text)
    assert [(b.lang, b.text, b.expected_of) for b in blocks] == [
        ("python", "print(1)\n", None), ("text", "1\n", 0), ("python", "x = 2\n", None), ("bash", "ls\n", None)]


def test_readme_rule_counts_match_the_rule_listing():
    listing = subprocess.run([sys.executable, "-m", "adsrc", "rules"], capture_output=True, text=True,
                             check=True, cwd=str(ROOT)).stdout
    m = re.search(r"(\d+) differentiable NumPy callables .* and (\d+) NumPy callables treated as constants", listing)
    assert m, "the summary line of `python -m adsrc rules` changed: update this test"
    differentiable, constant = m.groups()
    readme = " ".join(README.read_text().split())
    assert f"{differentiable} NumPy callables" in readme, \
        f"README.md should say {differentiable} NumPy callables, as `python -m adsrc rules` does"
    assert f"{constant} treated as constants" in readme, \
        f"README.md should say {constant} treated as constants, as `python -m adsrc rules` does"


REFUSED = textwrap.dedent('''
    import numpy as np

    def uses_try(x):
        try:
            a = np.log(x)
            y = np.sqrt(a)
        except ValueError:
            y = x
        return np.sum(y) + np.sum(a)

    class Doubled:
        def __init__(self, v):
            self.v = v

        def __enter__(self):
            return self.v * 2.0

        def __exit__(self, *exc):
            return False

    def uses_with(x):
        with Doubled(x) as d:
            y = d * x
        return np.sum(y)

    G = 1.0

    def uses_nonlocal(x):
        s = 1.0
        def inner(v):
            nonlocal s
            s = 2.0
            return v
        return np.sum(x * s) + np.sum(np.apply_along_axis(inner, 0, x))

    def uses_class(x):
        k = 2.0
        class Local:
            def f(self, v):
                return v * k
        return np.sum(Local().f(x))

    def uses_match(x, n=(1, 2)):
        match n:
            case (1, b):
                return np.sum(x) * b
        return np.sum(x) * 2.0

    def uses_starred(x):
        a, *rest = x
        return a * 2.0

    def uses_dict_comprehension(x):
        d = {k: x * k for k in range(3)}
        return np.sum(d[1])

    def uses_walrus_in_condition(x):
        if (s := np.sum(x)) > s * 0.5:
            return s
        return -s

    def kwargs_helper(x, **options):
        return x * options["a"]

    def uses_kwargs_helper(x):
        return np.sum(kwargs_helper(x, a=2.0))

    def args_helper(x, *factors):
        return x * factors[0]

    def uses_args_helper(x):
        return np.sum(args_helper(x, 2.0))

    def generator(x):
        yield x * 2.0

    def uses_generator(x):
        return np.sum(next(generator(x)))

    def endless(x):
        while True:
            yield x

    def uses_endless_generator(x):
        return np.sum(next(endless(x)))
''')

# README "What does not work": the construct as the README names it -> the function using it
README_REFUSALS = {
    "a `try` block that assigns": "uses_try", "a `with` whose context manager or `as` value": "uses_with", "(`nonlocal`) works where": "uses_nonlocal",
    "classes defined inside the function that read": "uses_class", "`match` with sequence": "uses_match",
    "`:=` in a condition where": "uses_walrus_in_condition",
}


@pytest.fixture(scope="module")
def refused_module(tmp_path_factory):
    path = tmp_path_factory.mktemp("refused") / "readme_refusals.py"
    path.write_text(REFUSED)
    import importlib.util
    spec = importlib.util.spec_from_file_location("readme_refusals", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("construct", sorted(README_REFUSALS))
def test_readme_refusals_are_refused_with_file_and_line(construct, refused_module):
    import numpy as np

    import adsrc
    section = README.read_text().split("## What does not work", 1)[1].split("\n## ", 1)[0]
    assert construct in " ".join(section.split()), f"README.md no longer lists {construct} as refused"
    names = README_REFUSALS[construct]
    for name in (names,) if isinstance(names, str) else names:
        with pytest.raises(adsrc.TransformError) as info:
            adsrc.grad(getattr(refused_module, name))(np.ones(3))
        message = str(info.value)
        assert "readme_refusals.py" in message and re.search(r"line \d+", message), \
            f"{construct} is refused without naming the file and line:\n{message}"
        assert "^" in message, f"{construct} is refused without a caret under the construct:\n{message}"


def test_readme_generators_that_never_end_are_refused_and_others_work(refused_module):
    import numpy as np

    import adsrc
    section = README.read_text().split("## What does not work", 1)[1].split("\n## ", 1)[0]
    assert "generator that never ends" in " ".join(section.split())
    with pytest.raises(adsrc.TransformError, match="never ends") as info:
        adsrc.grad(refused_module.uses_endless_generator)(np.ones(3))
    assert "readme_refusals.py" in str(info.value)
    np.testing.assert_allclose(adsrc.grad(refused_module.uses_generator)(np.ones(3)), [2.0, 2.0, 2.0], rtol=1e-12)


def update():
    """Rewrite the README's output blocks with what their code blocks print now."""
    import tempfile
    text = README.read_text()
    blocks = parse(text)
    with tempfile.TemporaryDirectory() as tmp:
        results = run_blocks(blocks, pathlib.Path(tmp))
    lines = text.split("\n")
    for out in sorted(_outputs(blocks), key=lambda b: -b.start):       # from the end: indices stay valid
        r = results.get(blocks[out.expected_of].lineno)
        if r is None or r["error"]:
            raise SystemExit(f"README.md line {blocks[out.expected_of].lineno} fails:\n"
                             f"{r['error'] if r else 'an earlier block failed'}")
        indent = FENCE.match(lines[out.start]).group(1)
        lines[out.start + 1:out.end] = [indent + line if line else line
                                        for line in r["stdout"].rstrip("\n").split("\n")]
    README.write_text("\n".join(lines))
    print(f"updated {len(_outputs(blocks))} output blocks of {README}")


if __name__ == "__main__":
    if sys.argv[1:] == ["--update"]:
        update()
    else:
        print(__doc__)
