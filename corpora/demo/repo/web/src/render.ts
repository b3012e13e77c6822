import type { Incident } from "./api.js";

const SEVERITY_LABEL: Record<Incident["severity"], string> = {
  sev1: "SEV-1 (critical)",
  sev2: "SEV-2 (major)",
  sev3: "SEV-3 (minor)",
};

function escapeHtml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;");
}

/** Renders the open incidents as a static HTML status page. */
export function renderBoard(incidents: Incident[], generatedAt: Date): string {
  const rows = incidents
    .map(
      (incident) =>
        `<tr class="${incident.severity}"><td>#${incident.id}</td>` +
        `<td>${SEVERITY_LABEL[incident.severity]}</td>` +
        `<td>${escapeHtml(incident.title)}</td><td>${incident.opened_at}</td></tr>`,
    )
    .join("\n");
  const body = incidents.length
    ? `<table>\n${rows}\n</table>`
    : "<p>No open incidents.</p>";
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Incident status</title></head>
<body>
<h1>Open incidents (${incidents.length})</h1>
${body}
<footer>Generated ${generatedAt.toISOString()}</footer>
</body>
</html>
`;
}
