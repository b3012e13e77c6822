"""Read-through cache for orders."""

from ordersvc.cache.redis_cache import OrderCache

__all__ = ["OrderCache"]
