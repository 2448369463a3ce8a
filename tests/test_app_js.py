"""Pieces of the browser app (src/scopa/server/static/app.js) run in Node.js, without a browser:
their logic where a browser test cannot choose the order of the engine's answers."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

APP = Path(__file__).resolve().parents[1] / "src" / "scopa" / "server" / "static" / "app.js"
NODE = shutil.which("node")


@pytest.mark.skipif(NODE is None, reason="Node.js is not installed")
def test_the_download_link_never_takes_an_older_matchs_late_record():
    # updateDownload asks the engine for match m1's record, then for the next match object
    # m2's; m2's ask fails (the engine gone), then m1's answer comes: the link took m1's record,
    # older than the match shown, since a failure cleared the "asked for" mark the late answer
    # was checked against.
    source = APP.read_text()
    start = source.index("function recordTags()")
    end = source.index("const replay = ")
    code = source[start:end] + re.sub(
        r"\n {4}",
        "\n",
        """
    const links = { href: null, attrs: {}, dataset: {}, setAttribute(k, v) { this.attrs[k] = v; },
      removeAttribute(k) { if (k === "href") this.href = null; } };
    Object.defineProperty(links, "href", { writable: true, value: null });
    const $ = () => links;
    globalThis.URL.createObjectURL = (blob) => blob.text;
    globalThis.URL.revokeObjectURL = () => {};
    globalThis.Blob = class { constructor(parts) { this.text = parts.join(""); } };
    const answers = [];
    const ask = () => new Promise((ok, no) => answers.push({ ok, no }));
    const game = { seat: 0, player: "pimc", engine: { ask } };
    const match = (plays) => ({ hands: [], winner: null, position: { hands: [0, 0], history: { plays } } });
    (async () => {
      const m1 = match(["a"]), m2 = match(["a", "b"]);
      game.match = m1; const first = updateDownload();
      game.match = m2; const second = updateDownload();
      answers[1].no(new Error("engine gone")); await second;
      answers[0].ok({ record: { plays: 1 } }); await first;
      console.log(JSON.stringify({ href: links.href, plays: links.dataset.plays }));
    })();
    """,
    )
    done = subprocess.run([NODE, "-e", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == '{"href":null,"plays":""}', done.stdout
