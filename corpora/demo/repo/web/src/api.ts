import axios, { type AxiosInstance } from "axios";
import { z } from "zod";

import type { BoardConfig } from "./config.js";

export const Incident = z.object({
  id: z.number().int(),
  title: z.string(),
  severity: z.enum(["sev1", "sev2", "sev3"]),
  status: z.enum(["open", "resolved"]),
  opened_at: z.string(),
  resolved_at: z.string().nullable(),
});

export type Incident = z.infer<typeof Incident>;

export class TrackerClient {
  private readonly http: AxiosInstance;

  constructor(config: BoardConfig) {
    this.http = axios.create({ baseURL: config.apiUrl, timeout: config.timeoutMs });
  }

  async listIncidents(limit = 50): Promise<Incident[]> {
    const response = await this.http.get("/incidents", { params: { limit } });
    return z.array(Incident).parse(response.data);
  }

  async isHealthy(): Promise<boolean> {
    try {
      const response = await this.http.get("/healthz");
      return response.data?.status === "ok";
    } catch {
      return false;
    }
  }
}
