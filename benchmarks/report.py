"""Turn a pytest-benchmark JSON file into the Markdown tables of docs/benchmarks.md (the
solver's and the core's).

Usage: python benchmarks/report.py bench.json
"""

from __future__ import annotations

import argparse
import json


def solver_table(data: dict) -> None:
    rows = {}
    for b in data["benchmarks"]:
        if not b["name"].startswith("test_solve"):
            continue
        rows[b["name"].removeprefix("test_")] = b["extra_info"]
    if not rows:
        return
    print()
    print(
        "| positions | count | median | worst | median nodes | nodes/s | TT hit rate "
        "| twin median | core vs twin |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, e in rows.items():
        if name.startswith("solve_4p_twin"):
            continue
        twin = rows.get(name.replace("solve_4p[", "solve_4p_twin[")) if name.startswith("solve_4p[") else None
        label = {
            "solve_scopa[last_refill]": "scopa, last refill",
            "solve_scopa[deal]": "scopa, from the deal (stock known)",
        }.get(name, name.replace("solve_4p[", "scopone, k=").rstrip("]"))
        tw = f"{twin['median_s'] * 1000:,.1f} ms" if twin else "-"
        ratio = f"{twin['median_s'] / e['median_s']:.0f}x" if twin else "-"
        print(
            f"| {label} | {e['positions']} | {e['median_s'] * 1000:,.1f} ms | {e['worst_s'] * 1000:,.1f} ms "
            f"| {e['median_nodes']:,.0f} | {e['nodes_per_s']:,.0f} | {e['tt_hit_rate']:.0%} "
            f"| {tw} | {ratio} |"
        )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bench_json", help="the file of pytest --benchmark-json=FILE")
    path = parser.parse_args(argv).bench_json
    # (a file that cannot be read, is not JSON or is not pytest-benchmark's ended in a traceback
    # of open, json or a KeyError of 'machine_info')
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError) as exc:
        parser.error(f"cannot read {path!r}: {exc}")
    if not (
        isinstance(data, dict)
        and isinstance(data.get("machine_info"), dict)
        and isinstance(data.get("benchmarks"), list)
    ):
        parser.error(
            f"{path!r} is not a pytest-benchmark file: expected an object with 'machine_info' and"
            " 'benchmarks' (pytest benchmarks --benchmark-json=FILE)"
        )
    print(
        f"machine: {data['machine_info'].get('cpu', {}).get('brand_raw', '?')}, "
        f"Python {data['machine_info']['python_version']}"
    )
    solver_table(data)
    rows: dict[str, dict[str, float]] = {}
    for b in data["benchmarks"]:
        if "calls" not in b["extra_info"]:
            continue
        name = b["name"].split("[")[0].removeprefix("test_")
        params = b.get("params") or {}
        key = name + (f" ({params['game']})" if "game" in params else "")
        per_sec = b["extra_info"]["calls"] / b["stats"]["median"]
        rows.setdefault(key, {})[params["core"]] = per_sec
    if not rows:
        return
    print()
    print("| benchmark | unit | Cython core | Python twin | ratio |")
    print("|---|---|---:|---:|---:|")
    for key, v in rows.items():
        unit = "hands/s" if key.startswith("playouts") else "calls/s"
        c, p = v.get("cython", 0.0), v.get("python", 0.0)
        ratio = f"{c / p:.0f}x" if p else "-"
        print(f"| {key} | {unit} | {c:,.0f} | {p:,.0f} | {ratio} |")


if __name__ == "__main__":
    main()
