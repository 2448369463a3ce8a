"""MkDocs hook: docstring examples (``>>>`` lines and their output, as written for doctest) are
shown as code, not as text (their brackets would otherwise read as Markdown links)."""

from __future__ import annotations

from typing import Any

from markdown import Extension, Markdown
from markdown.preprocessors import Preprocessor


class _DoctestBlocks(Preprocessor):
    def run(self, lines: list[str]) -> list[str]:
        out: list[str] = []
        fenced = False
        i = 0
        while i < len(lines):
            line = lines[i]
            if line.lstrip().startswith("```"):
                fenced = not fenced
            if not fenced and line.lstrip().startswith(">>> "):
                indent = len(line) - len(line.lstrip())
                block = []
                while i < len(lines) and lines[i].strip():
                    block.append(lines[i][indent:] if lines[i][:indent].isspace() or not indent else lines[i])
                    i += 1
                out += ["", "```pycon", *block, "```", ""]
                continue
            out.append(line)
            i += 1
        return out


class DoctestBlocks(Extension):
    def extendMarkdown(self, md: Markdown) -> None:  # noqa: N802 - Markdown's API
        md.preprocessors.register(_DoctestBlocks(md), "doctest_blocks", 40)


def on_config(config: Any) -> Any:
    config.markdown_extensions.append(DoctestBlocks())
    return config
