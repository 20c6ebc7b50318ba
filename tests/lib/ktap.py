"""Reading the kernel's serial log: cleaning its lines and parsing the nested
KTAP in it into test cases, seeds, the summary line and a panic, if any.
"""
import dataclasses
import re

ANSI_RE = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|[()][0-9A-Za-z]|[@-Z\\-_])")
CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
VERSION_RE = re.compile(r"K?TAP version \d+$")
PLAN_RE = re.compile(r"1\.\.(\d+)\s*(?:#.*)?$")
SUBTEST_RE = re.compile(r"#\s*Subtest:\s*(.*?)\s*$")
RESULT_RE = re.compile(r"(not ok|ok)\s+(\d+)\b\s*(.*)$")
SUMMARY_RE = re.compile(r"(\d+) passed, (\d+) failed(?:, (\d+) skipped)?$")
SEED_RE = re.compile(r"ktest: seed=(\d+)")
# A negative test announcing itself (KTEST_CASE_MUST_FAIL in kernel/ktest.h).
MUST_FAIL_RE = re.compile(r"#\s*must fail: (\S+)$")


def clean_line(raw):
    """What a terminal would show of one serial line: firmware and GRUB output
    under OVMF carries escape sequences and carriage-return overwrites."""
    line = ANSI_RE.sub("", raw.rstrip("\r"))
    line = line.rsplit("\r", 1)[-1]
    return CONTROL_RE.sub("", line.replace("\t", "    ")).rstrip()


def classify(body):
    """The KTAP kind of a line with its indentation removed."""
    if VERSION_RE.match(body):
        return "version"
    if PLAN_RE.match(body):
        return "plan"
    if SUBTEST_RE.match(body):
        return "subtest"
    if RESULT_RE.match(body):
        return "result"
    if body.startswith("#"):
        return "diag"
    if SUMMARY_RE.fullmatch(body):
        return "summary"
    return "other"


@dataclasses.dataclass
class Case:
    suite: str
    number: int
    name: str
    status: str     # pass | fail | skip
    index: int      # line index in the log

    def ident(self):
        return f"{self.suite}.{self.name}" if self.suite else self.name


@dataclasses.dataclass(eq=False)
class Block:
    """One KTAP test list (the top level or a subtest): a plan and its results."""
    depth: int
    name: str = None
    plan: int = None
    results: int = 0
    cases: list = dataclasses.field(default_factory=list)
    misnumbered: bool = False


@dataclasses.dataclass
class Ktap:
    lines: list                 # cleaned log lines
    kinds: list                 # (depth, kind) for each line
    cases: list = dataclasses.field(default_factory=list)
    summary: tuple = None       # (passed, failed, skipped) from the last summary line
    problems: list = dataclasses.field(default_factory=list)
    seeds: list = dataclasses.field(default_factory=list)
    panic_index: int = None
    must_fail: list = dataclasses.field(default_factory=list)   # SUITE.CASE, as declared

    def count(self, status):
        return sum(1 for case in self.cases if case.status == status)

    def totals(self):
        return self.count("pass"), self.count("fail"), self.count("skip")

    def failed(self):
        return [case for case in self.cases if case.status == "fail"]


class KtapParser:
    """Nested KTAP: a result line closing an open deeper block is a suite result;
    any other result indented at least once is a test case."""

    def __init__(self, raw_lines):
        self.k = Ktap([clean_line(raw) for raw in raw_lines], [])
        self.stack = []

    def parse(self):
        for index, line in enumerate(self.k.lines):
            body = line.lstrip(" ")
            depth = (len(line) - len(body)) // 4
            kind = classify(body)
            self.k.kinds.append((depth, kind))
            self.note_extras(index, body, kind)
            getattr(self, f"on_{kind}", lambda *args: None)(index, depth, body)
        while self.stack:
            self.close_top()
        return self.k

    def note_extras(self, index, body, kind):
        seed = SEED_RE.search(body)
        if seed and seed.group(1) not in self.k.seeds:
            self.k.seeds.append(seed.group(1))
        must_fail = MUST_FAIL_RE.match(body)
        if must_fail and must_fail.group(1) not in self.k.must_fail:
            self.k.must_fail.append(must_fail.group(1))
        if self.k.panic_index is None and kind != "result" and "PANIC" in body:
            self.k.panic_index = index

    def block_at(self, depth):
        """The open block at depth, closing deeper ones and opening it if absent
        (a kernel may leave out the optional version line)."""
        while self.stack and self.stack[-1].depth > depth:
            self.close_top()
        if not self.stack or self.stack[-1].depth < depth:
            self.stack.append(Block(depth))
        return self.stack[-1]

    def close_top(self):
        block = self.stack.pop()
        where = self.suite_path(block) or "top level"
        if block.plan is None:
            self.k.problems.append(f"{where}: no plan line (1..N)")
        elif block.plan != block.results:
            self.k.problems.append(f"{where}: plan 1..{block.plan} but {block.results} "
                                   f"result{'s' if block.results != 1 else ''}")
        if block.misnumbered:
            self.k.problems.append(f"{where}: results are not numbered 1, 2, 3...")
        for case in block.cases:
            case.suite = self.suite_path(block)
        return block

    def suite_path(self, block):
        """Dotted names of the suites enclosing block's cases (top level unnamed)."""
        names = [b.name for b in self.stack if b.depth >= 1 and b.name]
        if all(b is not block for b in self.stack) and block.depth >= 1 and block.name:
            names.append(block.name)
        return ".".join(names)

    def on_version(self, index, depth, body):
        while self.stack and self.stack[-1].depth >= depth:
            self.close_top()
        self.stack.append(Block(depth))

    def on_plan(self, index, depth, body):
        block = self.block_at(depth)
        if block.plan is not None:
            self.k.problems.append(f"line {index + 1}: a second plan line in one test list")
        block.plan = int(PLAN_RE.match(body).group(1))

    def on_subtest(self, index, depth, body):
        self.block_at(depth).name = SUBTEST_RE.match(body).group(1)

    def on_result(self, index, depth, body):
        word, number, rest = RESULT_RE.match(body).groups()
        name, _, directive = rest.partition("#")
        name = name.strip()
        if name.startswith("- "):
            name = name[2:]
        while self.stack and self.stack[-1].depth > depth + 1:
            self.close_top()
        is_suite = bool(self.stack) and self.stack[-1].depth == depth + 1
        if is_suite:
            child = self.stack[-1]
            child.name = child.name or name
            self.close_top()
        block = self.block_at(depth)
        block.results += 1
        if int(number) != block.results:
            block.misnumbered = True
        if is_suite or depth == 0:
            return      # top-level results are suites, never test cases
        if directive.strip().upper().startswith("SKIP"):
            status = "skip"
        else:
            status = "pass" if word == "ok" else "fail"
        case = Case("", int(number), name, status, index)
        block.cases.append(case)
        self.k.cases.append(case)

    def on_summary(self, index, depth, body):
        passed, failed, skipped = SUMMARY_RE.fullmatch(body).groups()
        self.k.summary = (int(passed), int(failed), int(skipped or 0))


def parse_ktap(raw_lines):
    return KtapParser(raw_lines).parse()


def consistency_problems(k):
    """What makes the KTAP output untrustworthy, whatever the verdicts say."""
    problems = list(k.problems)
    totals = k.totals()
    if k.summary is None:
        problems.append("no final `N passed, N failed` line in the log")
    elif k.summary != totals:
        problems.append(f"the summary line says {format_counts(*k.summary)} "
                        f"but the log has {format_counts(*totals)}")
    if totals[0] + totals[1] == 0:
        problems.append("no test ran")
    return problems


def format_counts(passed, failed, skipped):
    text = f"{passed} passed, {failed} failed"
    return text + (f", {skipped} skipped" if skipped else "")
