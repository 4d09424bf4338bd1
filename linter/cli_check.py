"""``qlint check PATH...``: lint the inputs deployment by deployment, apply or
show fixes, report (text, JSON, SARIF, GitHub annotations or per-rule statistics, then the
summary line), and choose the exit code.

No click here (``run`` is what both the click command in ``cli_check_command`` and the fast
path of ``qlint.linter.cli.entry`` call), so that ``qlint FILE`` does not pay for importing it."""

from __future__ import annotations

import os
import sys

from qlint.linter.cli_common import Usage, config_cache, default_lang, echo, fail, overrides
from qlint.linter.cli_inputs import gather, read
from qlint.linter.batch import Job, Outcome, Retained, Spool, analyse_all, counted, forks, keep, may_link, settle, slim
from qlint.record import record
from qlint.rules.base import Fix, finding_key

TYPE_CHECKING = False
if TYPE_CHECKING:  # the lint path imports these lazily
    from qlint.linter.config import Effective
    from qlint.linter.lint import LintResult, Policy
    from qlint.rules.base import Finding

DIFFS: list[str] = []
"""Files for which --diff printed a change (this process)."""
_BOM = b"\xef\xbb\xbf"


@record(frozen=True)
class FixMode:
    """What to do with fixes: ``write`` (--fix), ``diff`` (--diff), ``unsafe`` (--unsafe-fixes)."""

    write: bool = False
    diff: bool = False
    unsafe: bool = False
    lang: str = "en"  # the language of the messages printed while reading (input errors, fixed counts)


def choose_format(output_format, statistics):
    """The output format: as asked, else ``github`` under GitHub Actions, else ``text``."""
    if output_format is None:
        if statistics:
            return "text"
        return "github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text"
    if statistics and output_format != "text":
        raise Usage("--statistics prints a text table; drop --format or use --format text")
    return output_format


def use_color(choice: str) -> bool:
    """``--color``: always, never, or auto (a terminal without NO_COLOR)."""
    if choice != "auto":
        return choice == "always"
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR")


def run(paths, hardware=None, version=None, select=(), ignore=(), fail_level=None, config_path=None,
        output_format=None, exit_zero=False, fix=False, unsafe_fixes=False, show_diff=False,
        no_inline_suppressions=False, show_suppressed=False, quiet=False, statistics=False, color="auto",
        lang=None, launcher=None, with_deployment=False):
    """``qlint check``: lint ``paths`` and exit (0, 1 or 2); :class:`~qlint.linter.cli_common.Usage` on bad
    usage, raised before anything is read or printed."""
    from qlint.knowledge.base import KnowledgeError, load
    from qlint.rules.graph import Settings

    DIFFS.clear()
    output_format = choose_format(output_format, statistics)
    chosen = overrides(hardware, version, select, ignore, fail_level)
    named, directories = gather(paths)
    groups = directories + [[path] for path in named]
    if unsafe_fixes and not (fix or show_diff):
        raise Usage("--unsafe-fixes goes with --fix or --diff")
    if fix and show_diff:
        raise Usage("--diff shows the fixes without writing; drop --fix")
    if fix and any("-" in group for group in groups):
        raise Usage("--fix rewrites files; it cannot be used with - (stdin)")
    mode = FixMode(write=fix, diff=show_diff, unsafe=unsafe_fixes, lang=lang or default_lang())
    cache = config_cache(config_path)
    try:
        kb = load()
    except KnowledgeError as error:
        fail(f"qlint: knowledge base is broken: {error}")
    chosen_launcher = None
    if launcher is not None:
        from qlint.linter.deployment import parse_launcher

        try:
            chosen_launcher = parse_launcher(launcher, kb)
        except ValueError as error:
            raise Usage(str(error), param_hint="--launcher")
    settings = Settings(hardware=chosen.hardware, version=chosen.vllm_ascend)
    notices: list = []  # sarif.Notice of each input error
    inline = not no_inline_suppressions
    analysed: list[tuple[Analysed | None, tuple]] = []  # (Analysed, origin): origin is ("dir", n), ("named",) or ("extra",)
    seen: set[str] = set()
    jobs = [Job(path, ("dir", number)) for number, group in enumerate(directories) for path in group]
    jobs += [Job(path, ("named",), alone=path != "-") for path in named]
    for job in jobs:
        seen.add(os.path.abspath(job.path) if job.path != "-" else job.path)
    parallel = not (fix or show_diff) and "-" not in named and forks(len(jobs))
    prepared = {job.path: prepare(job.path, cache, chosen, inline) for job in jobs} if parallel else None

    def deploy_now(members):
        return deploy(members, settings, kb, chosen_launcher, mode, quiet, notices)

    lang = lang or default_lang()
    shown_color = use_color(color)
    streamed = streams(output_format, statistics)  # the text report, printed deployment by deployment

    def render(results) -> str:
        from qlint.linter.reporters import render_text

        return render_text(results, kb, color=shown_color, show_suppressed=show_suppressed, lang=lang)

    def one(job: Job) -> Outcome:
        errors: list = []
        say = None if prepared is None else (lambda notice, line: errors.append((notice, line)))
        item = analyse(job.path, cache, chosen, settings, kb, mode, quiet, notices, inline, say=say)
        settled = False
        if item is not None and job.alone and not (fix or show_diff) and not item.effective.deployments:
            item.writable = True  # a file given (what --fix may rewrite; the report says which fixes it takes)
            settled = settle(item, deploy_now)
            if settled and streamed:  # its text now, its findings let go (kept until its turn: Spool)
                item.report = render([item.result])
                counted(item.result)
        if item is not None and not settled and not (fix or show_diff):
            keep(item)  # its links, and the view of its plan the deployment pass reads
        if item is not None and prepared is not None:  # the parent has its own copy of these
            item.effective = item.policy = None
        return Outcome(item, errors, settled)

    def here(job: Job) -> bool:
        """Whether ``job`` is better analysed in this process when workers help: a file that may join others
        (kept for the deployment pass: a worker would send back its result and plan view), not one settled
        alone (a worker sends back its text)."""
        if not job.alone or prepared[job.path][0].deployments:  # type: ignore[index]  # set when workers help
            return True
        try:
            with open(job.path, "rb") as handle:
                return may_link(handle.read())
        except OSError:  # the worker that reads it reports it
            return False

    retained = Retained()
    spool = Spool()
    for job, outcome in zip(jobs, analyse_all(jobs, one, parallel, here)):
        retained.kept()
        for notice, line in outcome.errors:
            notices.append(notice)
            echo(line, err=True)
        item = outcome.item
        if item is not None:
            item.settled = outcome.settled
            if item.report is not None:
                item.spooled, item.report = spool.add(item.report), None
            if prepared is not None:
                item.effective, item.policy = prepared[job.path]
        analysed.append((item, job.origin))
    if with_deployment:  # pre-commit: the rest of each changed file's deployment is read too
        from qlint.linter.cli_inputs import walk

        quiet_mode = FixMode(lang=mode.lang)  # the files that did not change are read, never rewritten
        for item, _ in list(analysed):
            if item is None or item.path == "-" or item.path not in named:
                continue
            for other in deployment_files(item, walk):
                if os.path.abspath(other) not in seen:
                    seen.add(os.path.abspath(other))
                    analysed.append((analyse(other, cache, chosen, settings, kb, quiet_mode, True, notices, inline),
                                     ("extra",)))
    for item, origin in analysed:  # --fix rewrites the files it was given (stdin and --with-deployment's never)
        if item is not None and origin[0] in ("dir", "named") and item.path != "-":
            item.writable = True
    deployments = deployment_groups([(item, origin) for item, origin in analysed if item is not None])
    del analysed
    report_notes([item.result for members in deployments for item in members], output_format, quiet=quiet,
                 lang=lang)
    checked = []  # (LintResult, Effective), slimmed once reported (with the text report: counted)
    deployments.reverse()  # popped from the end, in order: each deployment is let go once reported
    while deployments:
        members = deployments.pop()
        if len(members) == 1 and members[0].settled:
            done = [(members[0].result, members[0].effective)]
            if members[0].spooled is not None:
                text = spool.take(members[0].spooled)
                if text:
                    echo(text, color=shown_color or None)
                checked += done
                continue
        else:  # a file settled alone that a proxy names after all: analysed again with its deployment
            again = []
            for item in members:
                if item.settled:
                    item = analyse(item.path, cache, chosen, settings, kb, mode, quiet, notices, inline)
                    if item is not None:
                        item.writable = True  # a file given, as when it was settled
                if item is not None:
                    again.append(item)
            done = deploy_now(again)
        if streamed:
            text = render([result for result, _ in done])
            if text:
                echo(text, color=shown_color or None)
        for result, _ in done:
            if streamed:
                counted(result)
            else:
                slim(result)
        checked += done
    spool.close()
    results = [result for result, _ in checked]
    report_findings(results, kb, output_format, notices, quiet=quiet, statistics=statistics,
                    show_suppressed=show_suppressed, color=shown_color, lang=lang, streamed=streamed,
                    given=paths)
    if notices:
        sys.exit(2)
    if show_diff:  # like ruff --diff: exit 1 when a file would change
        sys.exit(1 if DIFFS and not exit_zero else 0)
    failing = any(effective.is_failure(f.level) for result, effective in checked for f in result.findings)
    sys.exit(1 if failing and not exit_zero else 0)


@record
class Analysed:
    """One file read and linted on its own, before the deployment pass."""

    path: str
    display: str
    result: LintResult
    policy: Policy
    effective: Effective
    read: bytes = b""  # the bytes read from the file (before any fix)
    writable: bool = False  # --fix may rewrite it (a file given, or in a directory given)

    links: tuple[set, set] | None = None  # what it offers and asks for (grouping), once known
    settled: bool = False  # its deployment pass is done (it is a deployment of its own)
    report: str | None = None  # settled, with the text report: that report (what a worker sends back)
    spooled: int | None = None  # ... then its key in the batch's Spool

    def data(self) -> bytes:
        """The file's bytes as ``result`` was linted from (with --fix: as written; with --diff: as it would be)."""
        assert self.result.source is not None, self.display
        return (_BOM if self.read.startswith(_BOM) else b"") + self.result.source.data


def prepare(path, cache, overrides, inline) -> tuple[Effective, Policy]:
    """The configuration in force for ``path`` and the policy it gives (exit 2 on a bad configuration).

    Resolved once per configuration file (and command line): the files under one configuration share
    one Effective and one Policy (neither is changed once made; ``cli_commands.for_script`` copies)."""
    from qlint.linter.config import ConfigError, resolve

    try:
        found = cache.for_path(path)
        key = (id(found), id(overrides), inline)
        known = cache.prepared.get(key)
        if known is not None and known[0] is found and known[1] is overrides:
            return known[2]
        effective = resolve(found, overrides)
    except ConfigError as error:
        fail(str(error))
    from qlint.linter.lint import Policy

    enabled = effective.enabled_ids()
    if not enabled:  # never "no problems" when no rule ran
        from qlint.linter.config import empty_selection

        fail(empty_selection(effective))
    prepared = effective, Policy(enabled=enabled, severity=effective.severity, inline_suppressions=inline,
                                 hardware=effective.hardware, version=effective.vllm_ascend)
    cache.prepared[key] = (found, overrides, prepared)
    return prepared


def analyse(path, cache, overrides, settings, kb, mode, quiet, notices, inline, say=None):
    """Read and lint one file with its own configuration (fixes applied as asked); None after an input
    error, which is printed and added to ``notices`` (or, with ``say``, handed to it as (notice, line))."""
    from qlint.linter.lint import lint_bytes

    display = "<stdin>" if path == "-" else path
    effective, policy = prepare(path, cache, overrides, inline)

    def lint(content: bytes):
        return lint_bytes(display, content, settings=settings, kb=kb, policy=policy)

    read_back = lint_path(path, display, lint, mode, quiet, notices, say)
    if read_back is None:
        return None
    result, data = read_back
    return Analysed(path, display, result, policy, effective, data)


def deployment_files(item: Analysed, walk) -> list[str]:
    """The files that may share ``item``'s deployment: those its ``[tool.qlint] deployments`` glob
    matches, else its folder's (and its parent's, beside sibling folders)."""
    from pathlib import Path

    from qlint.linter.grouping import deployment_folder_files, glob_key

    effective = item.effective
    key = glob_key(item.path, effective.deployments, effective.deployments_root)
    if key is None or effective.deployments_root is None:
        return deployment_folder_files(item.path, walk)
    return [str(path) for path in walk(Path(effective.deployments_root), unreadable=[])
            if glob_key(str(path), effective.deployments, effective.deployments_root) == key]


def deployment_groups(analysed: list) -> list[list[Analysed]]:
    """Deployments: ``[tool.qlint] deployments`` globs first, then each directory argument (split where a
    subfolder holds a complete deployment of its own: ``grouping.folder_deployments``), then named files
    linked by what they reference (files read only for pre-commit join a group or are dropped)."""
    from qlint.linter.grouping import folder_deployments, glob_key, groups_of_links, links
    from qlint.rules.plan import ProxyCommand

    by_key: dict[tuple, list[Analysed]] = {}
    loose: list[tuple[Analysed, tuple]] = []
    for item, origin in analysed:
        key = glob_key(item.path, item.effective.deployments, item.effective.deployments_root)
        if key is not None:
            by_key.setdefault(("glob", key), []).append(item)
        elif origin[0] == "dir":
            by_key.setdefault(origin, []).append(item)
        else:
            loose.append((item, origin))
    groups: list[list[Analysed]] = []
    for origin_key, in_dir in by_key.items():
        if origin_key[0] != "dir":
            groups.append(in_dir)
            continue
        all_links = [item.links if item.links is not None else links(item.result.plan) for item in in_dir]
        proxies = [item.result.plan is not None and any(isinstance(c, ProxyCommand) for c in item.result.plan.commands)
                   for item in in_dir]
        for indices in folder_deployments([item.path for item in in_dir], all_links, proxies):
            groups.append([in_dir[index] for index in indices])
    for members in groups_of_links([item.links if item.links is not None else links(item.result.plan)
                                    for item, _ in loose]):
        if any(loose[index][1][0] == "named" for index in members):
            groups.append([loose[index][0] for index in members])
    return groups


def deploy(group: list[Analysed], settings, kb, launcher, mode: FixMode | None = None, quiet=True, notices=None):
    """The deployment pass over one group: templates per rank, then the cross-file rules; with --fix or
    --diff, the deployment's own fixes applied to the files given (``fix_deployment``), then written
    together or shown as one diff per file."""
    from qlint.linter.deployment import NotKept, is_template, lint_deployment
    from qlint.linter.lint import lint_bytes

    policies = {item.display: item.policy for item in group}
    effectives = {item.display: item.effective for item in group}

    def evaluate(contents: dict[str, bytes] | None):
        """Lint the group (``contents``: path -> bytes; None: as analyse() read it): the results, and the
        keys of each file's own fixes (those the per-file fixer applies)."""
        own: set[tuple] = set()
        if contents is None:
            inputs = [(item.display, item.data()) for item in group]
            first = [item.result for item in group]
        else:
            inputs = [(item.display, contents[item.display]) for item in group]
            first = [lint_bytes(path, data, settings=settings, kb=kb, policy=policies[path]) for path, data in inputs]
        for result in first:
            if result.error is None:
                own |= own_fix_keys(result.path, result.findings)
        if any(result.error is not None or result.source is None for result in first):
            return first, own
        try:
            return lint_deployment(inputs, settings, kb, launcher, policies, first), own
        except NotKept:  # the pass read what a plan's view does not keep: again on whole plans, as read
            first = [lint_bytes(path, data, settings=settings, kb=kb, policy=policies[path]) for path, data in inputs]
            return lint_deployment(inputs, settings, kb, launcher, policies, first), own

    results, own = evaluate(None)
    # the files the deployment fixer may change: given to --fix, not a DP template (a rank's value is not the file's)
    deployable = {item.display for item, result in zip(group, results)
                  if item.writable and result.plan is not None and not is_template(result.plan)}
    if mode is not None and (mode.write or mode.diff):
        results = _fix_group(group, results, own, evaluate, deployable, mode, quiet, notices)
    for result in results:  # what --fix will not apply: not a file's own fix, nor one the deployment fixer takes
        mark_by_hand(result.findings, own, result.path if result.path in deployable else None)
    return [(result, effectives[result.path]) for result in results]


def own_fix_keys(path: str, findings: list[Finding]) -> set[tuple]:
    """The findings with edits that the per-file fixer (``fixer.fix_bytes``) considers for ``path``."""
    return {finding_key(f) for f in findings if f.path == path and f.fix is not None and f.fix.edits}


def mark_by_hand(findings: list[Finding], applied: set[tuple], deployable: str | None = None) -> None:
    """Mark as ``by_hand`` (on a copy of the fix) the fixes with edits that ``--fix`` will not apply: not
    in ``applied`` (the files' own fixes) and not in ``deployable``, the file whose deployment fixes
    ``--fix`` applies (``fix_deployment``; None when it applies none of this file's)."""
    for finding in findings:
        fix = finding.fix
        if fix is None or not fix.edits or fix.by_hand or finding_key(finding) in applied:
            continue
        if deployable is not None and finding.path == deployable:
            continue
        finding.fix = Fix(fix.description, fix.edits, fix.safety, fix.description_zh, by_hand=True)


def _fix_group(group: list[Analysed], results, own, evaluate, deployable, mode: FixMode, quiet, notices):
    """Apply the deployment fixes of one group; write the changed files together (--fix) or print
    each file's whole diff (--diff). Returns the results to report."""
    from qlint.linter.fix_deployment import fix_deployment
    from qlint.linter.fixer import unified_diff, write_all

    zh = mode.lang.startswith("zh")
    current = {item.display: item.data() for item in group}
    outcome = fix_deployment(current, results, own, evaluate, deployable, unsafe=mode.unsafe) if deployable \
        else None
    if outcome is not None and outcome.rolled_back:
        echo("部署的修复会留下 bash 无法解析的脚本；文件保持不变" if zh
             else "deployment fixes would leave a script bash cannot parse; files left unchanged", err=True)
    changed = outcome.data if outcome is not None and not outcome.rolled_back else {}
    if mode.diff:
        for item in group:
            after = changed.get(item.display, current[item.display])
            if after != item.read:
                echo(unified_diff(item.display, item.read, after), nl=False)
                DIFFS.append(item.display)
                if not quiet:  # the findings left are those of the fixed text, which is not on disk
                    echo(f"{'注意：' if zh else 'note: '}{item.display}: "
                         + ("以下剩余的问题按修复后文本的行号报告（文件未被改动）" if zh else
                            "the problems left are reported at the lines of the fixed text (the file is unchanged)"),
                         err=True)
        return outcome.results if changed and outcome is not None else results
    if not changed or outcome is None:
        return results
    by_display = {item.display: item for item in group}
    try:
        write_all([(by_display[path].path, data, current[path]) for path, data in changed.items()])
    except OSError as error:
        from qlint.linter.sarif import Notice

        where = getattr(error, "failed_path", None) or by_display[next(iter(changed))].path
        from qlint.linter.cli_inputs import reason

        why = reason(error, zh)
        names = ", ".join(changed)
        message = (f"部署的修复无法写入：{why}；{names} 均未被这些修复改动" if zh
                   else f"cannot write the deployment's fixes: {why}; none of {names} was changed by them")
        if notices is not None:
            notices.append(Notice(where, 1, 1, message))
        echo(f"{where}:1:1: {'错误：' if zh else 'error: '}{message}", err=True)
        return results
    if not quiet:
        for path, count in outcome.applied.items():
            echo(f"{path}: 修复了 {count} 个跨文件问题" if zh else f"{path}: fixed {count} deployment problem(s)", err=True)
    return outcome.results


def lint_path(path, display, lint, mode, quiet, notices, say=None):
    """Read, lint (and with fixes asked for, repair or diff) one path; None after an input error."""

    zh = mode.lang.startswith("zh")

    def failed(line, column, message, message_zh=None):
        from qlint.linter.sarif import Notice

        shown = message_zh if zh and message_zh else message
        notice = Notice(display, line, column, shown)
        text = f"{display}:{line}:{column}: {'错误：' if zh else 'error: '}{shown}"
        if say is not None:
            return say(notice, text)
        notices.append(notice)
        echo(text, err=True)

    try:
        data = read(path)
    except OSError as error:
        from qlint.linter.cli_inputs import reason

        return failed(1, 1, f"cannot read file: {reason(error)}", f"无法读取文件：{reason(error, True)}")
    if not (mode.write or mode.diff):
        result = lint(data)
    else:
        from qlint.linter.fixer import fix_bytes, write_atomic  # tempfile: only when fixing

        outcome = fix_bytes(display, data, lint, unsafe=mode.unsafe)
        result = outcome.result  # with --diff: what would be left after the fixes (printed by deploy())
        if outcome.data is not None and not mode.diff:
            try:
                write_atomic(path, outcome.data, original=data)
            except OSError as error:
                from qlint.linter.cli_inputs import reason

                return failed(1, 1, f"cannot write the fixed file: {reason(error)}",
                              f"无法写入修复后的文件：{reason(error, True)}")
            if not quiet:
                echo(f"{display}: 修复了 {outcome.applied} 个问题" if zh
                     else f"{display}: fixed {outcome.applied} problem(s)", err=True)
        elif outcome.rolled_back:
            echo(f"{display}: 修复后的脚本 bash 无法解析；文件保持不变" if zh
                 else f"{display}: fixes would leave a script bash cannot parse; file left unchanged", err=True)
    if result.error is not None:
        return failed(result.error.line, result.error.column, result.error.message, result.error.zh)
    return result, data


# -- the report ----------------------------------------------------------------------------------
def streams(output_format: str, statistics: bool) -> bool:
    """Whether the findings are printed deployment by deployment as they are checked (the text report),
    rather than as one document at the end (JSON, SARIF, GitHub annotations, statistics)."""
    return output_format == "text" and not statistics


def report_notes(results, output_format, *, quiet, lang="en"):
    """The notes on stderr that come before the findings (assumed release, files without an engine,
    unknown hardware)."""
    shown = not quiet and output_format in ("text", "github")
    assumed = [r for r in results if r.assumed_version] if shown else []
    # an unknown release: said once per run, whatever the format (stderr)
    releases = [] if quiet else list(dict.fromkeys(r.release_note.get(lang) for r in results if r.release_note))
    engineless = [result for result in results if result.found and result.error is None] if shown else []
    unknown = [result.path for result in results if result.hardware_unknown] if shown else []
    if not (assumed or releases or engineless or unknown):
        return  # nothing to say (most runs): the notes' module is not imported
    from qlint.linter.notes import assumed_release, no_engine, no_hardware, note_label

    label = note_label(lang)
    if assumed:
        tags = sorted({r.assumed_version for r in assumed})
        echo(f"{label}{assumed_release(tags[0], [r.path for r in assumed]).get(lang)}", err=True)
    for note in releases:
        echo(f"{label}{note}", err=True)
    for result in engineless:
        echo(f"{label}{no_engine(result.path, result.found).get(lang)}", err=True)
    if unknown:
        echo(f"{label}{no_hardware(unknown).get(lang)}", err=True)


def report_findings(results, kb, output_format, notices, *, quiet, statistics, show_suppressed, color, lang="en",
                    streamed=False, given=()):
    """The findings in ``output_format`` (unless ``streamed``: already printed group by group), then the
    summary line (which names the ``given`` paths when none of them held a script)."""
    from qlint.linter.reporters import render_json, render_text, summary
    from qlint.linter.reporters import statistics as count_per_rule

    if output_format == "json":
        echo(render_json(results, kb, lang, notices))
        return
    if output_format == "sarif":
        from qlint.linter.sarif import render_sarif

        echo(render_sarif(results, notices, lang))
        return
    if output_format == "github":
        from qlint.linter.github import render_github

        text = render_github(results, lang)
    elif statistics:
        text = count_per_rule(results)
    elif streamed:
        text = ""
    else:
        text = render_text(results, kb, color=color, show_suppressed=show_suppressed, lang=lang)
    if text:
        echo(text, color=color or None)
    if not quiet:
        zh = lang.startswith("zh")
        line = summary(results, lang)
        if notices:  # never "no problems" for something that was not read
            if zh:
                line = line.replace("，没有发现问题", "", 1) + f"；{len(notices)} 个输入无法读取（见上方错误）"
            else:
                line = line.replace(", no problems", "", 1)
                line += f"; {len(notices)} input(s) could not be read (see the errors above)"
        elif not results:
            shown = ", ".join(str(path) for path in list(given)[:3]) + (f" (+{len(given) - 3})" if len(given) > 3 else "")
            line = (f"{shown or '给定路径'} 中没有找到 shell 脚本：未检查任何内容" if zh
                    else f"no shell script found in {shown or 'the given paths'}: nothing was checked")
        echo(line)


def __getattr__(name: str):
    if name == "check_command":  # the click command, declared where click is imported
        from qlint.linter.cli_check_command import check_command

        return check_command
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
