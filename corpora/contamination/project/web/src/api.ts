// Talks to the order API with the platform fetch; responses are validated, then cached.
import { OrderCache } from "./cache.js";
import { apiBase } from "./config.js";
import { type Order, validateOrder } from "./forms.js";

const cache = new OrderCache();

export async function fetchOrder(id: string): Promise<Order> {
  const hit = cache.get(id);
  if (hit) {
    return hit;
  }
  const response = await fetch(`${apiBase}/orders/${encodeURIComponent(id)}`);
  if (!response.ok) {
    throw new Error(`order ${id}: HTTP ${response.status}`);
  }
  const order = validateOrder(await response.json());
  cache.put(order);
  return order;
}

export async function createOrder(draft: Omit<Order, "id">): Promise<string> {
  const response = await fetch(`${apiBase}/orders`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(draft),
  });
  const body = (await response.json()) as { id: string };
  return body.id;
}
