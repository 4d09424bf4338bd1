"""Regenerate tests/fixtures/seeds/*.sh from the seed tutorials in ../shared/seeds.

Each fixture is one launch block copied verbatim (dedented) from a seed; blocks a
user runs together (a server then its clients) are concatenated in tutorial order.
Run: python tests/extract_seed_fixtures.py [SEEDS_DIR]
"""

import sys
import textwrap
from pathlib import Path

HERE = Path(__file__).parent
SEEDS = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE.parent.parent / "shared" / "seeds"
OUT = HERE / "fixtures" / "seeds"

S000 = "000_94316b1b2010938d.txt"
S001 = "001_1f87ed2ec95407d6.txt"
S003 = "003_ce9d3b502b9e7b97.txt"

# name -> list of (seed, first line, last line), 1-based inclusive
BLOCKS = {
    "s000_docker.sh": [(S000, 34, 63)],
    "s000_a3_w8a8_single_node.sh": [(S000, 81, 116)],
    "s000_clients.sh": [(S000, 99, 116), (S000, 138, 145), (S000, 161, 165), (S000, 185, 195)],
    "s001_docker_a3.sh": [(S001, 49, 80)],
    "s001_docker_a2.sh": [(S001, 84, 107)],
    "s001_docker_310p.sh": [(S001, 111, 133)],
    "s001_a2a3_qwen35_27b_w8a8.sh": [(S001, 181, 215)],
    "s001_a2a3_qwen36_27b_w8a8_262k.sh": [(S001, 219, 253)],
    "s001_310p_qwen35_27b_w8a8.sh": [(S001, 278, 298)],
    "s001_310p_qwen36_27b_w8a8.sh": [(S001, 302, 322)],
    "s001_pd_prefill_template.sh": [(S001, 395, 454)],
    "s001_pd_decode_template.sh": [(S001, 459, 518)],
    "s001_pd_launchers.sh": [(S001, 531, 534)],
    "s001_pd_proxy.sh": [(S001, 543, 567)],
    "s001_clients.sh": [(S001, 598, 605), (S001, 611, 621)],
    "s001_lm_eval.sh": [(S001, 702, 719)],
    "s001_bench.sh": [(S001, 742, 745)],
    "s003_docker.sh": [(S003, 38, 69)],
    "s003_a3_w8a8_single_node.sh": [(S003, 83, 118)],
    "s003_pd_run_p.sh": [(S003, 164, 234)],
    "s003_pd_run_d0.sh": [(S003, 240, 315)],
    "s003_pd_run_d1.sh": [(S003, 321, 395)],
    "s003_pd_proxy.sh": [(S003, 409, 425)],
    "s003_bench.sh": [(S003, 493, 495)],
}


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, parts in BLOCKS.items():
        chunks = []
        for seed, first, last in parts:
            lines = (SEEDS / seed).read_text(encoding="utf-8").splitlines()[first - 1 : last]
            chunks.append(textwrap.dedent("\n".join(lines)).strip("\n"))
        (OUT / name).write_text("\n\n".join(chunks) + "\n", encoding="utf-8")
        print(name)


if __name__ == "__main__":
    main()
