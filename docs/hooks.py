"""MkDocs hooks: docstring examples (``>>>`` lines and their output, as written for doctest) are
shown as code, not as text (their brackets would otherwise read as Markdown links); the
command-line reference (docs/cli.md) gets every command's ``--help``, made from the CLI's own
parser."""

from __future__ import annotations

import argparse
import os
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


#: where docs/cli.md wants the help of every command
CLI_MARKER = "<!-- scopa-cli-help -->"
#: the width the help is wrapped to (argparse reads it from COLUMNS)
CLI_WIDTH = 90


def cli_help() -> str:
    """Markdown: ``scopa --help``, then each command's ``--help`` under its own heading."""
    from scopa.__main__ import build_parser

    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    before = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(CLI_WIDTH)
    try:
        parts = ["## scopa", "", "```text", parser.format_help().rstrip(), "```"]
        for name, sub in commands.choices.items():
            parts += ["", f"## scopa {name}", "", "```text", sub.format_help().rstrip(), "```"]
    finally:
        if before is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = before
    return "\n".join(parts) + "\n"


def on_page_markdown(markdown: str, **kwargs: Any) -> str:
    return markdown.replace(CLI_MARKER, cli_help()) if CLI_MARKER in markdown else markdown
