"""Without the `mcp` extra, `anchorcheck mcp` is a one-line usage error (exit 2), not a traceback."""

from __future__ import annotations

import subprocess
import sys

SCRIPT = "import sys; sys.modules['mcp'] = None\nfrom anchorcheck.cli import main\nraise SystemExit(main(['mcp', '--root', '.']))\n"


def test_missing_sdk_names_the_extra(tmp_path) -> None:  # noqa: ANN001
    done = subprocess.run([sys.executable, "-c", SCRIPT], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.strip() == "anchorcheck: error: anchorcheck mcp needs the MCP Python SDK: pip install 'anchorcheck[mcp]'"
