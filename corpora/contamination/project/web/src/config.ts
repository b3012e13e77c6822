// Where the order API lives; set at build time by the deploy pipeline.
export const apiBase: string = process.env.ORDERS_API_BASE ?? "http://localhost:8080";
export const cacheSize = 500;
