import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";

import { TrackerClient } from "./api.js";
import { loadConfig } from "./config.js";
import { renderBoard } from "./render.js";

async function main(): Promise<void> {
  const config = loadConfig();
  const client = new TrackerClient(config);
  if (!(await client.isHealthy())) {
    throw new Error(`tracker API at ${config.apiUrl} is not healthy`);
  }
  const incidents = await client.listIncidents();
  await mkdir(config.outDir, { recursive: true });
  const target = join(config.outDir, "index.html");
  await writeFile(target, renderBoard(incidents, new Date()), "utf8");
  console.log(`wrote ${incidents.length} open incidents to ${target}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
