"""Turn a pytest-benchmark JSON file into the README's Markdown table.

Usage: python benchmarks/report.py bench.json
"""

from __future__ import annotations

import json
import sys


def main(path: str) -> None:
    data = json.load(open(path))
    rows: dict[str, dict[str, float]] = {}
    for b in data["benchmarks"]:
        name = b["name"].split("[")[0].removeprefix("test_")
        params = b.get("params") or {}
        key = name + (f" ({params['game']})" if "game" in params else "")
        per_sec = b["extra_info"]["calls"] / b["stats"]["median"]
        rows.setdefault(key, {})[params["core"]] = per_sec
    print(f"machine: {data['machine_info'].get('cpu', {}).get('brand_raw', '?')}, "
          f"Python {data['machine_info']['python_version']}")
    print()
    print("| benchmark | unit | Cython core | Python twin | ratio |")
    print("|---|---|---:|---:|---:|")
    for key, v in rows.items():
        unit = "hands/s" if key.startswith("playouts") else "calls/s"
        c, p = v.get("cython", 0.0), v.get("python", 0.0)
        ratio = f"{c / p:.0f}x" if p else "-"
        print(f"| {key} | {unit} | {c:,.0f} | {p:,.0f} | {ratio} |")


if __name__ == "__main__":
    main(sys.argv[1])
