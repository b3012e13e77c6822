#!/usr/bin/env bash
# What action.yml runs: findings as annotations in the log, a SARIF log for code scanning, and a
# Markdown job summary. Inputs come through the environment (never spliced into the script):
# ANCHORCHECK_ARGS (extra `check` arguments), ANCHORCHECK_SARIF (the SARIF path), GITHUB_STEP_SUMMARY.
# Exits as `anchorcheck check` does: 0 clean, 1 something fails the run, 2 a usage or input error.
set -uo pipefail
read -r -a args <<< "${ANCHORCHECK_ARGS:-}"
sarif="${ANCHORCHECK_SARIF:-anchorcheck.sarif}"

anchorcheck check --format sarif --output "$sarif" "${args[@]}"
status=$?
if [ "$status" -ge 2 ]; then
  exit "$status"
fi
anchorcheck check --format github "${args[@]}"
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  anchorcheck check --format markdown "${args[@]}" >> "$GITHUB_STEP_SUMMARY"
fi
exit "$status"
