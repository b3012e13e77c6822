// Order forms are validated in the browser before they reach the API.
import { z } from "zod";

export const OrderSchema = z.object({
  id: z.string(),
  customer: z.string().min(1),
  total: z.number().nonnegative(),
});

export type Order = z.infer<typeof OrderSchema>;

export function validateOrder(input: unknown): Order {
  return OrderSchema.parse(input);
}
