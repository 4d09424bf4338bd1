"""One vLLM release's facts from its sdist: options, parser spellings, sub-configs, validations, env vars."""

from __future__ import annotations

from typing import Any

from qlint.knowledge.extract.pyast import Index
from qlint.knowledge.extract.sources import SdistTree
from qlint.knowledge.extract.vllm_cli import Reader, parser_features
from qlint.knowledge.extract.vllm_configs import (
    all_validations,
    apply_bounds,
    deprecated_env_names,
    read_env_vars,
    read_sub_configs,
)

SCHEMA = 1
PREFIXES = ("vllm/config", "vllm/engine/arg_utils.py", "vllm/entrypoints/openai/cli_args.py",
            "vllm/entrypoints/cli/serve.py", "vllm/utils")


def extract_vllm(archive: str, version: str) -> dict[str, Any]:
    tree = SdistTree(archive, version)
    index = Index(tree, PREFIXES, prefer=("vllm/config", "vllm/engine", "vllm/entrypoints"))
    unread: list[str] = list(index.unread)
    reader = Reader(tree, index, unread)
    from qlint.knowledge.extract import vllm_configs

    vllm_configs.PYDANTIC_PARSE["value"] = reader.ctx.pydantic_parse
    options = [option.record(tree) for option in reader.read()]
    if not options:
        unread.append("no vllm serve option found")
    validations = all_validations(index, tree, ("vllm/config", "vllm/engine/arg_utils.py"))
    # ranges enforced by validators, attached to the option of that field
    by_class: dict[str, list[dict]] = {}
    for record in validations:
        by_class.setdefault(record["class"], []).append(record)
    for option in options:
        if "field" in option:
            cls, _, name = option["field"].partition(".")
            scoped = [dict(r, bounds=[b for b in r.get("bounds", []) if b["field"] == name]) for r in by_class.get(cls, [])]
            apply_bounds([option], [r for r in scoped if r["bounds"]])
    sub_configs = read_sub_configs(options, index, tree, unread)
    env_vars = read_env_vars(tree, "vllm/envs.py", unread)
    deprecated = deprecated_env_names(tree, "vllm/envs.py")
    for record in env_vars:
        if record["name"] in deprecated:
            record["deprecated"] = True
            record["deprecated_source"] = deprecated[record["name"]]
    return {
        "schema": SCHEMA,
        "project": "vllm",
        "version": version,
        "ref": tree.ref,
        "archive": archive.rsplit("/", 1)[-1],
        "parser": parser_features(tree, index),
        "options": options,
        "sub_configs": sub_configs,
        "env_vars": env_vars,
        "validations": validations,
        "unread": sorted(set(unread)),
    }
