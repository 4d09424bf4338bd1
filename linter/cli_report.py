"""How ``qlint check`` prints its results: text, JSON, SARIF, GitHub annotations or
per-rule statistics, then the summary line."""

from __future__ import annotations

from qlint.linter.cli_echo import echo


def report(results, kb, output_format, notices, *, quiet, statistics, show_suppressed, color, lang="en"):
    """Print ``results`` (LintResult list) in ``output_format``; ``notices`` are the input errors."""
    report_notes(results, output_format, quiet=quiet, lang=lang)
    report_findings(results, kb, output_format, notices, quiet=quiet, statistics=statistics,
                    show_suppressed=show_suppressed, color=color, lang=lang)


def streams(output_format: str, statistics: bool) -> bool:
    """Whether the findings are printed deployment by deployment as they are checked (the text report),
    rather than as one document at the end (JSON, SARIF, GitHub annotations, statistics)."""
    return output_format == "text" and not statistics


def report_group(results, kb, *, show_suppressed, color, lang="en"):
    """The text report of one deployment's files, printed as soon as it is checked."""
    from qlint.linter.reporters import render_text

    text = render_text(results, kb, color=color, show_suppressed=show_suppressed, lang=lang)
    if text:
        echo(text, color=color or None)


def report_notes(results, output_format, *, quiet, lang="en"):
    """The notes on stderr that come before the findings (assumed release, files without an engine,
    unknown hardware)."""
    shown = not quiet and output_format in ("text", "github")
    assumed = sorted({r.assumed_version for r in results if r.assumed_version}) if shown else []
    # an unknown release: said once per run, whatever the format (stderr)
    releases = [] if quiet else list(dict.fromkeys(r.release_note.get(lang) for r in results if r.release_note))
    engineless = [result for result in results if result.found and result.error is None] if shown else []
    unknown = [result.path for result in results if result.hardware_unknown] if shown else []
    if not (assumed or releases or engineless or unknown):
        return  # nothing to say (most runs): the notes' module is not imported
    from qlint.linter.notes import assumed_release, no_engine, no_hardware, note_label

    label = note_label(lang)
    if assumed:
        echo(f"{label}: {assumed_release(assumed[0]).get(lang)}", err=True)
    for note in releases:
        echo(f"{label}: {note}", err=True)
    for result in engineless:
        echo(f"{label}: {no_engine(result.path, result.found).get(lang)}", err=True)
    if unknown:
        echo(f"{label}: {no_hardware(unknown).get(lang)}", err=True)


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
