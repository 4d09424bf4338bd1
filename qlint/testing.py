"""Hypothesis strategies for launch scripts, drawn from qlint's knowledge.

Teams that generate ``vllm serve`` launch scripts can test their generator
against the same knowledge qlint lints with::

    from hypothesis import given
    import qlint.testing as qt

    @given(qt.configs(hardware="a3"))
    def test_my_generator_is_clean(config):
        script = my_generator(config.model, config.hardware, config.scenario,
                              quantized=config.quantized, version=config.version)
        assert qt.problems(script) == []

    @given(qt.launch_scripts(hardware="a3"))      # qlint's own generator as the reference
    def test_my_parser_reads_them(script): ...

    @given(qt.violations(rule="QL206"))            # a script that breaks exactly QL206
    def test_my_checker_catches_it(violation):
        script, rule = violation
        ...

What the strategies draw:

* :func:`configs` -- a :class:`LaunchConfig` (model, hardware, scenario,
  quantized weights or not, vllm-ascend release) that
  :func:`qlint.linter.generate.generate` accepts: the model is supported on
  that hardware in that release and its weights fit one node. Every argument
  narrows the choice (one value or a collection of values).
* :func:`deployments` / :func:`launch_scripts` -- the same configurations
  rendered by qlint's generator (a :class:`~qlint.linter.generate.Deployment`,
  or just its script text). They lint clean: no warning and no error.
* :func:`violations` -- a generated script edited so that exactly one named
  rule fires (no other rule reports a warning or an error, except the ones a
  mutation declares in ``also``: QL206's new TP may also be one a known defect names, QL560), as a
  :class:`Violation` ``(script, rule)``. :data:`MUTATIONS` is the catalogue:
  one :class:`Mutation` per rule it covers (:func:`mutation_rules` lists them).
* :func:`pd_pairs` -- the prefill, decode and proxy scripts of a 1P1D Mooncake PD
  deployment from ``qlint.linter.generate_nodes.generate_pd`` (a :class:`PdPair`); they
  lint clean together as one deployment.
* :func:`shell_texts` -- shell-like text made of launch-script pieces, some of it
  broken on purpose, for fuzzing script readers.

* :func:`node_trees` -- whole multi-node and PD trees (``generate --nodes N`` / ``--pd xPyD``, with
  ``--prefill-nodes`` / ``--decode-nodes``) over models x hardware x weights x releases x layouts the
  generator accepts (a :class:`NodeTree`: files, config, the topology they follow); each lints clean as one
  deployment. :func:`tree_mutations` changes one field of one script (a non-head node's RPC port, DP address
  or start rank, a decode script's served name, a proxy port, the peer TP/DP an engine states:
  :data:`TREE_MUTATIONS`) and names the one
  finding that must come of it (a :class:`TreeMutation`); :func:`lint_tree` lints a tree as one deployment.
  See :mod:`qlint.testing_nodes`.

External DP templates run by ``launch_online_dp.py`` are not drawn yet.

hypothesis is a test dependency of qlint (``pip install 'qlint-ascend[test]'``, or the checkout's
``pip install -e '.[test]'``);
importing this module without it raises an ImportError that says so.
"""

from __future__ import annotations

try:
    from hypothesis import strategies as st
except ImportError as error:  # pragma: no cover - depends on the environment
    from qlint.install_hint import extra_install

    raise ImportError(
        "qlint.testing needs hypothesis, which is a test extra of qlint: "
        f"{extra_install('test')} (or pip install hypothesis)"
    ) from error

import itertools
import json
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Callable, Iterable, Mapping, NamedTuple

if TYPE_CHECKING:
    from qlint.knowledge.base import KnowledgeBase
    from qlint.linter.generate import Deployment
    from qlint.rules.base import Finding

__all__ = [
    "LaunchConfig",
    "LAYOUTS",
    "Mutation",
    "MUTATIONS",
    "NodeTree",
    "PdPair",
    "SHELL_PIECES",
    "TREE_MUTATIONS",
    "TreeConfig",
    "TreeMutation",
    "Violation",
    "all_configs",
    "configs",
    "deployments",
    "drop_flag",
    "flag_value",
    "json_flag",
    "launch_scripts",
    "lint_findings",
    "lint_tree",
    "mutation_rules",
    "node_trees",
    "pd_pairs",
    "problems",
    "render",
    "render_tree",
    "set_flag",
    "set_json_flag",
    "shell_texts",
    "tree_mutations",
    "violations",
]

HARDWARE = ("a2", "a3", "310p")


# -- configurations ------------------------------------------------------------

@dataclass(frozen=True, order=True)
class LaunchConfig:
    """One single-node launch configuration: what :func:`qlint.linter.generate.generate` takes.

    ``model`` is a knowledge model id (``Qwen3.6-27B``), ``hardware`` ``a2`` / ``a3`` /
    ``310p``, ``scenario`` one of ``high-throughput``, ``low-latency``,
    ``long-context``, ``quantized`` selects the W8A8 checkpoint (else BF16),
    ``version`` a vllm-ascend release tag (``v0.23.0``).
    """

    model: str
    hardware: str
    scenario: str
    quantized: bool
    version: str

    def render(self, kb: KnowledgeBase | None = None) -> Deployment:
        """The deployment qlint's generator builds for this configuration."""
        return render(self, kb)


def _kb(kb: KnowledgeBase | None = None) -> KnowledgeBase:
    from qlint.knowledge.base import load

    return kb if kb is not None else load()


def render(config: LaunchConfig, kb: KnowledgeBase | None = None) -> Deployment:
    """Render a configuration with qlint's generator (cached: the same config gives the same object)."""
    if kb is None:
        return _render_cached(config)
    from qlint.linter.generate import generate

    return generate(kb, config.model, config.hardware, config.scenario, config.quantized, config.version)


@lru_cache(maxsize=4096)
def _render_cached(config: LaunchConfig) -> Deployment:
    from qlint.linter.generate import generate

    return generate(_kb(), config.model, config.hardware, config.scenario, config.quantized, config.version)


@lru_cache(maxsize=1)
def all_configs() -> tuple[LaunchConfig, ...]:
    """Every configuration the knowledge supports, in a stable order.

    The product of the knowledge's models, hardware, scenarios, weight types and
    releases, kept where qlint's generator accepts it.
    """
    from qlint.linter.generate import SCENARIOS, GenerationError

    kb = _kb()
    versions = sorted({release.tag for release in kb.releases})
    found = []
    for model, hardware, scenario, quantized, version in itertools.product(
        [m.id for m in kb.models], HARDWARE, SCENARIOS, (True, False), versions
    ):
        config = LaunchConfig(model, hardware, scenario, quantized, version)
        try:
            render(config)
        except GenerationError:
            continue
        found.append(config)
    return tuple(found)


def _wanted(value) -> frozenset | None:
    if value is None:
        return None
    if isinstance(value, (str, bool)):
        return frozenset([value])
    return frozenset(value)


def _select(model=None, hardware=None, version=None, scenario=None, quantized=None) -> list[LaunchConfig]:
    wanted = {
        "model": _wanted(model),
        "hardware": _wanted(hardware),
        "version": _wanted(version),
        "scenario": _wanted(scenario),
        "quantized": _wanted(quantized),
    }
    chosen = [
        config for config in all_configs()
        if all(values is None or getattr(config, key) in values for key, values in wanted.items())
    ]
    if not chosen:
        asked = ", ".join(f"{key}={value!r}" for key, value in
                          dict(model=model, hardware=hardware, version=version, scenario=scenario,
                               quantized=quantized).items() if value is not None)
        raise ValueError(f"the knowledge supports no launch configuration with {asked or 'no filter'}")
    return chosen


def configs(*, model=None, hardware=None, version=None, scenario=None, quantized=None) -> st.SearchStrategy[LaunchConfig]:
    """Launch configurations the knowledge supports (see :func:`all_configs`).

    Each argument is one value or a collection of values: ``hardware="a3"``,
    ``version=["v0.22.1rc1", "v0.23.0"]``, ``quantized=True``. Raises ValueError
    when nothing matches.
    """
    return st.sampled_from(_select(model, hardware, version, scenario, quantized))


def deployments(**filters) -> st.SearchStrategy[Deployment]:
    """Generated deployments (:class:`~qlint.linter.generate.Deployment`, with ``.script``);
    same filters as :func:`configs`."""
    return configs(**filters).map(render)


def launch_scripts(**filters) -> st.SearchStrategy[str]:
    """Generated launch scripts (text) that lint clean; same filters as :func:`configs`."""
    return deployments(**filters).map(lambda deployment: deployment.script)


# -- shell-like text -------------------------------------------------------------

SHELL_PIECES = (
    "vllm serve ", "Eco-Tech/Qwen3.6-27B-w8a8 ", "--tensor-parallel-size ", "3 ", "--port 8000 ",
    "--max-model-len 32768 ", "--enable-expert-parallel ", "--data-parallel-size 2 ",
    "'{\"cudagraph_mode\": \"FULL_DECODE_ONLY\"}' ", "--compilation-config ", "--speculative-config ",
    "\"x y\" ", "'a b' ", "$MODEL ", "${PORT:-8000} ", "$1 ", "\"$(hostname)\" ", "`date` ", "$((1+2)) ",
    "export MODEL=/m/Qwen3.5-27B\n", "PORT=9000\n", "A=\"1 2\"\n", "# 中文注释 café\n", "# qlint: hardware=a3\n",
    "# qlint: disable=QL206\n", "\\\n  ", "\n", "\r\n", " && ", " | ", "; ", " &\n", "http://<server_ip>:<port>/v1 ",
    "-H 'k: v' ", "curl ", "-d '{\"model\": \"qwen3.6\"}' ", "echo ", "é ", "中 ", "x\\ y ", "unset A\n",
    "cat <<EOF\nbody $A\nEOF\n", "nohup ", "python -m vllm.entrypoints.openai.api_server ", "'", "\"", "`",
    "$(", ")", "{", "}", "<<", "#!/bin/bash\n", "\ufeff",
)
"""The pieces launch scripts are made of, unbalanced quotes and brackets included."""


def shell_texts(max_pieces: int = 30) -> st.SearchStrategy[str]:
    """Shell-like text: up to ``max_pieces`` of :data:`SHELL_PIECES` in any order.

    For fuzzing script readers: much of it parses, some of it is broken on purpose
    (a lone quote, ``$(`` without ``)``, a heredoc without its end).
    """
    return st.lists(st.sampled_from(SHELL_PIECES), max_size=max_pieces).map("".join)


# -- linting helpers -------------------------------------------------------------

def lint_findings(script: str, path: str = "script.sh", **settings) -> list[Finding]:
    """Lint script text with qlint; ``settings`` are ``hardware=`` / ``version=`` overrides.

    Raises ValueError when the text is not a readable shell script.
    """
    from qlint.linter.lint import lint_text
    from qlint.rules.graph import Settings

    result = lint_text(path, script, settings=Settings(**settings))
    if result.error is not None:
        raise ValueError(f"{path}:{result.error.line}:{result.error.column}: {result.error.message}")
    return result.findings


def problems(script: str, path: str = "script.sh", **settings) -> list[tuple[str, str]]:
    """``(rule id, message)`` of every warning and error qlint reports for a script."""
    return [(f.rule.id, f.message) for f in lint_findings(script, path, **settings) if f.level != "info"]


# -- script edits ------------------------------------------------------------------

_SERVE = re.compile(r"^vllm serve [^\n]*\\\n", re.MULTILINE)


def _arg_lines(script: str) -> tuple[int, int]:
    """(start, end) offsets of the argument lines of the generated ``vllm serve`` command."""
    match = _SERVE.search(script)
    if match is None:
        raise ValueError("not a generated script: no 'vllm serve ... \\' line")
    return match.end(), len(script)


def flag_value(script: str, flag: str) -> str | None:
    """The value written after ``flag`` on its own argument line, None when absent."""
    match = re.search(rf"^  {re.escape(flag)} (.*?)(?: \\)?$", script, re.MULTILINE)
    return match.group(1) if match else None


def set_flag(script: str, flag: str, value: str | None = None) -> str:
    """Set ``flag`` (to ``value``; a switch when None): replace its line or add one after ``vllm serve``."""
    text = flag if value is None else f"{flag} {value}"
    pattern = re.compile(rf"^  {re.escape(flag)}(?: .*?)?( \\)?$", re.MULTILINE)
    if pattern.search(script):
        return pattern.sub(lambda m: f"  {text}{m.group(1) or ''}", script, count=1)
    start, _ = _arg_lines(script)
    return script[:start] + f"  {text} \\\n" + script[start:]


def drop_flag(script: str, flag: str) -> str:
    """Remove the argument line of ``flag`` (keeping the continuation of the command intact)."""
    lines = script.split("\n")
    for index, line in enumerate(lines):
        if line == f"  {flag}" or line.startswith(f"  {flag} ") or line == f"  {flag} \\":
            if not line.endswith("\\") and index > 0:  # the last argument: the line before ends the command
                lines[index - 1] = lines[index - 1].removesuffix(" \\")
            del lines[index]
            return "\n".join(lines)
    return script


def json_flag(script: str, flag: str) -> dict | None:
    """The JSON object of a JSON-valued flag written as ``'...'``, None when absent."""
    value = flag_value(script, flag)
    if value is None:
        return None
    return json.loads(value.strip("'"))


def set_json_flag(script: str, flag: str, data: dict) -> str:
    """Set a JSON-valued flag to ``data``, single-quoted as the generator writes it."""
    return set_flag(script, flag, "'" + json.dumps(data, separators=(", ", ": ")) + "'")


# -- the mutation catalogue ----------------------------------------------------------

DrawFn = Callable[[st.SearchStrategy], object]


@dataclass(frozen=True)
class Mutation:
    """How to break one rule in a generated script.

    ``applies(config, deployment, kb)`` says whether the edit makes sense for a
    configuration (e.g. only MoE models have experts); ``apply(draw, deployment, kb)``
    returns the edited script, drawing any choice it makes with hypothesis' ``draw``.
    ``also`` names rules that cannot help firing with this one (and why, in
    ``summary``); every other rule stays below warning level.
    """

    rule: str
    summary: str
    applies: Callable[[LaunchConfig, "Deployment", "KnowledgeBase"], bool]
    apply: Callable[[DrawFn, "Deployment", "KnowledgeBase"], str]
    also: frozenset[str] = frozenset()


class Violation(NamedTuple):
    """A script that breaks ``rule`` (and no other rule at warning or error level)."""

    script: str
    rule: str


def _model(deployment, kb):
    return kb.model(deployment.model)


def _hardware(deployment, kb):
    return kb.hardware_by_id(deployment.hardware)


def _variant(deployment, kb):
    return next(v for v in _model(deployment, kb).variants if v.name == deployment.variant)


# QL206: TP that does not divide the attention heads, on one DP group

def _bad_tps(deployment, kb) -> list[int]:
    heads = _model(deployment, kb).num_attention_heads
    hardware = _hardware(deployment, kb)
    if not heads:
        return []
    # QL205 (DP-first sizing) would also fire for a TP above 2 on a model that fits one NPU
    fits_one = _variant(deployment, kb).weights_gb <= hardware.hbm_gb / 2
    if hardware.id != "310p" and fits_one and deployment.max_model_len < 200_000:
        return []
    return [tp for tp in range(deployment.tp + 1, hardware.npus_per_node + 1) if heads % tp]


def _tp_not_dividing_heads(draw, deployment, kb) -> str:
    tp = draw(st.sampled_from(_bad_tps(deployment, kb)))
    script = drop_flag(deployment.script, "--data-parallel-size")
    script = drop_flag(script, "--enable-expert-parallel")  # else EP = TP breaks QL207 as well
    return set_flag(script, "--tensor-parallel-size", str(tp))


# QL207: an EP size that does not divide the routed experts

def _bad_dps(deployment, kb) -> list[int]:
    model = _model(deployment, kb)
    npus = _hardware(deployment, kb).npus_per_node
    if not (model.moe and model.num_experts and deployment.enable_expert_parallel):
        return []
    return [dp for dp in range(2, npus // deployment.tp + 1) if model.num_experts % (deployment.tp * dp)]


def _ep_not_dividing_experts(draw, deployment, kb) -> str:
    dp = draw(st.sampled_from(_bad_dps(deployment, kb)))
    return set_flag(deployment.script, "--data-parallel-size", str(dp))


# (QL201, expert tensor parallel with expert parallel, has no mutation: a generated script states its release, and
# no release that serves Qwen3.5/3.6 reads expert_tensor_parallel_size, so there the key is only QL105's)


# QL203: more NPUs than the node has

def _too_many_choices(deployment, kb) -> list[int]:
    npus = _hardware(deployment, kb).npus_per_node
    experts = _model(deployment, kb).num_experts
    choices = list(range(npus // deployment.tp + 1, 4 * npus // deployment.tp + 1))
    if deployment.enable_expert_parallel and experts:  # keep EP = TP x DP a divisor of the experts (QL207)
        choices = [dp for dp in choices if experts % (deployment.tp * dp) == 0]
    return choices


def _too_many_npus(draw, deployment, kb) -> str:
    dp = draw(st.sampled_from(_too_many_choices(deployment, kb)))
    return set_flag(deployment.script, "--data-parallel-size", str(dp))


# QL301: --max-model-len above the model's maximum

def _len_above_model(draw, deployment, kb) -> str:
    limit = _model(deployment, kb).max_model_len
    length = draw(st.integers(limit + 1, limit + 4096))
    return set_flag(deployment.script, "--max-model-len", str(length))


# QL302: --max-num-batched-tokens below max_num_seqs x (k + 1)

def _batched_below_decode(draw, deployment, kb) -> str:
    need = deployment.max_num_seqs * (deployment.mtp_tokens + 1)
    value = draw(st.integers(max(1, need // 2), need - 1))
    return set_flag(deployment.script, "--max-num-batched-tokens", str(value))


# QL401: capture sizes that are not multiples of num_speculative_tokens + 1

def _capture_off_spec(draw, deployment, kb) -> str:
    step = deployment.mtp_tokens + 1
    size = draw(st.integers(step + 1, 4 * step).filter(lambda n: n % step))
    config = json_flag(deployment.script, "--compilation-config") or {}
    config["cudagraph_capture_sizes"] = [step, size] if size > step else [size]
    return set_json_flag(deployment.script, "--compilation-config", config)


# QL501 / QL506 / QL507 / QL509: dtype and quantization per hardware and checkpoint

def _drop_float16(draw, deployment, kb) -> str:
    script = drop_flag(deployment.script, "--dtype")
    dtype = draw(st.sampled_from([None, "bfloat16", "auto"]))
    return script if dtype is None else set_flag(script, "--dtype", dtype)


def _fp8_kv_cache(draw, deployment, kb) -> str:
    return set_flag(deployment.script, "--kv-cache-dtype", draw(st.sampled_from(["fp8", "fp8_e4m3", "fp8_e5m2"])))


def _float16_w8a8(draw, deployment, kb) -> str:
    return set_flag(deployment.script, "--dtype", draw(st.sampled_from(["float16", "half"])))


def _quantize_bf16(draw, deployment, kb) -> str:
    return set_flag(deployment.script, "--quantization", "ascend")


# QL101 / QL102 / QL103 / QL104: script-level mistakes

def _broken_json(draw, deployment, kb) -> str:
    value = flag_value(deployment.script, "--compilation-config")
    assert value is not None
    broken = draw(st.sampled_from([value[:-2] + "'", value.replace(": ", " ", 1), value[:-2] + ",}'"]))
    return deployment.script.replace(f"--compilation-config {value}", f"--compilation-config {broken}", 1)


def _unknown_flag(draw, deployment, kb) -> str:
    name = draw(st.sampled_from(["--enable-turbo-mode", "--npu-speed", "--max-npu-batch", "--qwen-fast-path"]))
    return set_flag(deployment.script, name)


def _trailing_backslash(draw, deployment, kb) -> str:
    blank = draw(st.sampled_from(["\n", "\n\n", "\n# done\n"]))
    return deployment.script.rstrip("\n") + " \\\n" + blank


def _misplaced_shebang(draw, deployment, kb) -> str:
    lines = deployment.script.split("\n")
    assert lines[0].startswith("#!")
    where = draw(st.integers(1, 4))
    shebang = lines.pop(0)
    lines.insert(where, shebang)
    return "\n".join(lines)


# QL512: an environment variable the release removed

def _removed_env(deployment, kb) -> list[str]:
    from qlint.knowledge.base import parse_version

    version = parse_version(deployment.version)
    names = []
    for item in kb.env_vars:
        removed = getattr(item, "removed_in", None)
        if removed and version >= parse_version(removed) and item.name not in deployment.env:
            names.append(item.name)
    return sorted(names)


def _stale_env(draw, deployment, kb) -> str:
    name = draw(st.sampled_from(_removed_env(deployment, kb)))
    return deployment.script.replace("\nexport ", f"\nexport {name}=1\nexport ", 1)


# QL601: kv_connector_extra_config that does not describe this engine

@lru_cache(maxsize=1024)
def _pd_engine(config: LaunchConfig, role: str) -> Deployment:
    from qlint.linter.generate import generate

    return generate(_kb(), config.model, config.hardware, "high-throughput", config.quantized, config.version,
                    port=8100 if role == "prefill" else 8200, role=role)


def _pd_ready(config, deployment, kb) -> bool:
    from qlint.linter.generate import GenerationError

    if not _hardware(deployment, kb).supports_pd:
        return False
    try:
        _pd_engine(config, "prefill")
    except GenerationError:
        return False
    return True


def _kv_size_mismatch(draw, deployment, kb) -> str:
    config = LaunchConfig(deployment.model, deployment.hardware, deployment.scenario,
                          _is_quantized(deployment, kb), deployment.version)
    role = draw(st.sampled_from(["prefill", "decode"]))
    engine = _pd_engine(config, role)
    transfer = json_flag(engine.script, "--kv-transfer-config")
    if transfer is None:
        raise ValueError("a generated PD engine always has --kv-transfer-config")
    own = transfer["kv_connector_extra_config"][role]
    own["tp_size"] = draw(st.sampled_from([t for t in (1, 2, 4, 8, 16) if t != own["tp_size"]]))
    return set_json_flag(engine.script, "--kv-transfer-config", transfer)


def _is_quantized(deployment, kb) -> bool:
    return _variant(deployment, kb).quantization == "w8a8"


def _always(config, deployment, kb) -> bool:
    return True


MUTATIONS: Mapping[str, Mutation] = {m.rule: m for m in [
    Mutation("QL101", "break the JSON of --compilation-config", _always, _broken_json),
    Mutation("QL102", "add a flag vllm serve does not have", _always, _unknown_flag),
    Mutation("QL103", "end the command with a backslash before a blank line or the end", _always,
             _trailing_backslash),
    Mutation("QL104", "move the shebang below line 1", _always, _misplaced_shebang),
    Mutation("QL203", "raise DP until TP x DP exceeds the node's NPUs",
             lambda c, d, kb: c.hardware != "310p" and bool(_too_many_choices(d, kb)), _too_many_npus),
    Mutation("QL206", "a TP size that does not divide the attention heads (one DP group)",
             # not with FlashComm1 on a MoE model: dropping expert parallel there breaks QL404 as well
             lambda c, d, kb: bool(_bad_tps(d, kb)) and not (_model(d, kb).moe and "flashcomm1" in d.optimisations),
             # the new TP may also be one a known defect of the release names (Qwen3.5-27B at v0.17.0rc1: TP >= 8)
             _tp_not_dividing_heads, also=frozenset({"QL560"})),
    Mutation("QL207", "a DP size that makes EP = TP x DP not divide the routed experts",
             lambda c, d, kb: bool(_bad_dps(d, kb)), _ep_not_dividing_experts),
    Mutation("QL301", "--max-model-len above the model's maximum", _always, _len_above_model),
    Mutation("QL302", "--max-num-batched-tokens below max-num-seqs x (k + 1)",
             lambda c, d, kb: d.max_num_seqs * (d.mtp_tokens + 1) > 1 and "cudagraph_capture_sizes" not in d.script,
             _batched_below_decode),
    Mutation("QL401", "a capture size that is not a multiple of num_speculative_tokens + 1",
             lambda c, d, kb: d.mtp_tokens > 0 and c.hardware != "310p", _capture_off_spec),
    Mutation("QL501", "drop --dtype float16 on Atlas 300I (310P)",
             lambda c, d, kb: c.hardware == "310p", _drop_float16),
    Mutation("QL506", "an FP8 KV cache on Atlas 300I (310P)", lambda c, d, kb: c.hardware == "310p", _fp8_kv_cache),
    Mutation("QL507", "float16 with W8A8 weights on Atlas A2/A3",
             lambda c, d, kb: c.hardware != "310p" and c.quantized, _float16_w8a8),
    Mutation("QL509", "--quantization ascend on a BF16 checkpoint", lambda c, d, kb: not c.quantized, _quantize_bf16),
    Mutation("QL512", "export an environment variable the release removed",
             lambda c, d, kb: bool(_removed_env(d, kb)), _stale_env),
    Mutation("QL601", "a kv_connector_extra_config whose own block has the wrong tp_size",
             lambda c, d, kb: _pd_ready(c, d, kb), _kv_size_mismatch),
]}
"""The mutation catalogue: rule id -> how to break that rule in a generated script."""


def mutation_rules() -> list[str]:
    """The rule ids :data:`MUTATIONS` can break, sorted."""
    return sorted(MUTATIONS)


@lru_cache(maxsize=None)
def _applicable(rule: str, selection: tuple[LaunchConfig, ...]) -> tuple[LaunchConfig, ...]:
    kb = _kb()
    mutation = MUTATIONS[rule]
    return tuple(c for c in selection if mutation.applies(c, render(c), kb))


def violations(rule: str | Iterable[str] | None = None, **filters) -> st.SearchStrategy[Violation]:
    """Scripts that break one rule: ``(script, rule_id)`` (a :class:`Violation`).

    ``rule`` is a rule id of :data:`MUTATIONS` or a collection of them (default:
    all); the other arguments filter the configuration as in :func:`configs`.
    A configuration the mutation does not apply to (QL207 needs a MoE model with
    expert parallel, QL501 the 310P...) is never drawn; raises ValueError when
    no configuration fits.
    """
    rules = mutation_rules() if rule is None else sorted(_wanted(rule) or ())
    unknown = [r for r in rules if r not in MUTATIONS]
    if unknown:
        raise ValueError(f"no mutation for {', '.join(unknown)}; qlint.testing covers {', '.join(mutation_rules())}")
    selection = tuple(_select(**filters))
    per_rule = []
    for rule_id in rules:
        applicable = _applicable(rule_id, selection)
        if applicable:
            per_rule.append(_violation(rule_id, applicable))
    if not per_rule:
        raise ValueError(f"no configuration matching the filters can break {', '.join(rules)}")
    return st.one_of(per_rule)


def _violation(rule: str, applicable: tuple[LaunchConfig, ...]) -> st.SearchStrategy[Violation]:
    @st.composite
    def draw_violation(draw) -> Violation:
        config = draw(st.sampled_from(applicable))
        deployment = render(config)
        return Violation(MUTATIONS[rule].apply(draw, deployment, _kb()), rule)

    return draw_violation()


# -- PD pairs ---------------------------------------------------------------------

class PdPair(NamedTuple):
    """A 1P1D PD deployment from ``qlint.linter.generate_nodes.generate_pd``: the prefill node's
    script (kv_producer), the decode node's (kv_consumer), the proxy, and the configuration."""

    prefill: str
    decode: str
    proxy: str
    config: LaunchConfig


@lru_cache(maxsize=1024)
def _pd_pair(config: LaunchConfig) -> PdPair:
    from qlint.linter.generate_nodes import generate_pd

    pd = generate_pd(_kb(), config.model, config.hardware, config.quantized, config.version)
    return PdPair(pd.side("prefill").script, pd.side("decode").script, pd.proxy, config)


def pd_pairs(**filters) -> st.SearchStrategy[PdPair]:
    """1P1D Mooncake PD deployments qlint's generator builds (prefill, decode, proxy).

    Drawn from the configurations of :func:`configs` (same filters; the scenario is
    always the generator's high-throughput sizing) whose hardware supports PD (A2, A3)
    and which ``generate_pd`` accepts. The three scripts lint clean as one deployment.
    """
    from qlint.linter.generate import GenerationError

    chosen = []
    for config in _select(**filters):
        if config.scenario != "high-throughput":
            continue
        try:
            _pd_pair(config)
        except GenerationError:
            continue
        chosen.append(config)
    if not chosen:
        raise ValueError("no configuration matching the filters can be deployed as 1P1D PD")
    return st.sampled_from(chosen).map(_pd_pair)


from qlint.testing_nodes import (  # noqa: E402  (whole trees: their own module, the same namespace)
    LAYOUTS, TREE_MUTATIONS, NodeTree, TreeConfig, TreeMutation, lint_tree, node_trees, render_tree, tree_mutations)
