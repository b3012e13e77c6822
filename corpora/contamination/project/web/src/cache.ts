// The back office's own in-memory cache of orders it has shown, so paging back is instant.
import { LRUCache } from "lru-cache";

import { cacheSize } from "./config.js";
import type { Order } from "./forms.js";

export class OrderCache {
  private readonly entries = new LRUCache<string, Order>({ max: cacheSize });

  get(id: string): Order | undefined {
    return this.entries.get(id);
  }

  put(order: Order): void {
    this.entries.set(order.id, order);
  }
}
