"""Markdown is read as CommonMark says: what is code, a heading or a comment is not prose, and positions stay exact."""

from __future__ import annotations

from anchorcheck.memory.references import program_of, read_references
from anchorcheck_plugins.formats.markdown import read_markdown
from anchorcheck_plugins.formats.markdown_edit import rename_markdown
from tests._hostile_support import run_cli


def anchors(text: str) -> list[str]:
    return [r.anchor for r in read_references(text, claims=lambda argv: program_of(argv) == "make")]


def test_backticks_inside_an_indented_code_block_are_not_checked() -> None:
    text = "Paragraph with `src/app.py`.\n\n    `file:old/gone.py` and `make lint` are code here\n    `docs/x.md`\n"
    assert anchors(text) == ["file:src/app.py"]
    memories = read_markdown("AGENTS.md", text)
    assert [m.text for m in memories] == ["Paragraph with `src/app.py`."]
    assert all(not m.anchors for m in memories)


def test_a_setext_heading_is_no_memory_and_its_code_is_read_as_a_heading_s() -> None:
    text = "Build with `make`\n=================\n\nUse `src/app.py`.\n\nThe `docs/x.md` part\n---\n"
    assert [m.text for m in read_markdown("AGENTS.md", text)] == ["Use `src/app.py`."]
    assert anchors(text) == ["file:src/app.py", "file:docs/x.md"]  # an ATX heading's code is read too, as prose is


def test_an_html_comments_content_is_not_read() -> None:
    text = (
        "<!--\nOld notes:\n- `file:src/removed.py` lives here\n-- still a comment -->\n"
        "- Keep `src/app.py`.\n"
        "Inline <!-- `file:src/hidden.py` --> comment.\n"
    )
    memories = read_markdown("AGENTS.md", text)
    assert [m.anchors for m in memories] == [[]]
    assert memories[0].text.startswith("Keep `src/app.py`.")
    assert anchors(text) == ["file:src/app.py"]


def test_an_escaped_backtick_opens_no_code_span() -> None:
    text = "Not code: \\`file:src/a.py\\` but `file:src/b.py` is.\n"
    memory = read_markdown("AGENTS.md", text)[0]
    assert memory.anchors == ["file:src/b.py"]
    assert text[memory.anchor_positions[0].column - 1 :].startswith("file:src/b.py")


def test_a_list_item_keeps_its_later_paragraphs_and_skips_its_code() -> None:
    text = "1. Run the tests:\n\n   ```sh\n   make test\n   ```\n\n   Then read `file:docs/x.md`.\n2. Next item.\n"
    memories = read_markdown("AGENTS.md", text)
    assert [(m.position.line, m.anchors) for m in memories] == [(1, ["file:docs/x.md"]), (8, [])]
    assert memories[0].anchor_positions[0].line == 7
    assert anchors(text) == ["cmd:make test"]


def test_write_back_renames_only_real_code_spans() -> None:
    text = "- See `file:a.py`.\n\n      `file:a.py` in indented code\n"
    renamed, changed = rename_markdown("AGENTS.md", text, {"file:a.py": "file:b.py"})
    assert changed == [(1, "file:a.py")]
    assert renamed == "- See `file:b.py`.\n\n      `file:a.py` in indented code\n"


def test_front_matter_keeps_line_numbers() -> None:
    text = "---\napplyTo: '**'\n---\n# Title\n\nUse `file:src/app.py`.\n"
    memory = read_markdown("x.instructions.md", text)[0]
    assert memory.position.line == 6 and memory.metadata == {"frontmatter": {"applyTo": "**"}}


def test_reference_links_are_read_where_they_are_defined() -> None:
    text = "See [the ADR][adr].\n\n[adr]: docs/adr/0003.md \"ADR\"\n\n    [code]: not/a/definition.md\n"
    found = read_references(text)
    assert [(r.anchor, r.line, r.column, r.form) for r in found] == [("file:docs/adr/0003.md", 3, 8, "link")]


def test_a_markdown_file_past_the_parse_budget_is_one_finding_naming_it(make_repo) -> None:  # noqa: ANN001
    """A 16 MB instruction file (under the 16 MiB memory-file cap) is not parsed: seconds of work for a file
    no agent reads whole. It is one INCONCLUSIVE finding naming the file and why; the other files are checked."""
    line = "- Item mentions `src/app.py` and [a link](docs/x.md) with *emphasis* here.\n"
    big = "# Notes\n\n" + line * (16_000_000 // len(line))
    root = make_repo({"CLAUDE.md": big, "AGENTS.md": "- The app is `file:src/app.py`; gone: `file:src/old.py`.\n", "src/app.py": "x = 1\n"})
    run = run_cli(root, "check", "--no-cache", "CLAUDE.md", "AGENTS.md")
    assert "Traceback" not in run.stderr and not run.timed_out, run.stderr[-2000:]
    assert (
        f"CLAUDE.md:1:1: INCONCLUSIVE CLAUDE.md — the memory file could not be read, so none of its memories were checked: "
        f"Markdown of {len(big):,} characters, more than 1 MiB; not parsed (an instruction file is a few KB)"
    ) in run.stdout, run.stdout[:2000]
    assert "AGENTS.md:1: REFUTED memory: The app is `file:src/app.py`; gone: `file:src/old.py`." in run.stdout  # still checked
    assert run.returncode == 0  # INCONCLUSIVE, as any unreadable file: it fails the run only under --fail-on inconclusive
