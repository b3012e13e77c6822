export interface BoardConfig {
  apiUrl: string;
  outDir: string;
  timeoutMs: number;
}

/** Reads the board settings from the environment, with local-development defaults. */
export function loadConfig(): BoardConfig {
  const apiUrl = process.env.TRACKER_API_URL ?? "http://localhost:8000";
  const timeoutMs = Number(process.env.BOARD_TIMEOUT_MS ?? "5000");
  return {
    apiUrl: apiUrl.replace(/\/+$/, ""),
    outDir: process.env.BOARD_OUT_DIR ?? "public",
    timeoutMs: Number.isFinite(timeoutMs) && timeoutMs > 0 ? timeoutMs : 5000,
  };
}
