"""Publish order events to the `orders` topic exchange, msgpack-encoded."""

from __future__ import annotations

from typing import Any

import msgpack
import pika

EXCHANGE = "orders"


class OrderPublisher:
    def __init__(self, amqp_url: str) -> None:
        self._url = amqp_url
        self._channel = None

    def _connect(self):
        connection = pika.BlockingConnection(pika.URLParameters(self._url))
        channel = connection.channel()
        channel.exchange_declare(exchange=EXCHANGE, exchange_type="topic", durable=True)
        return channel

    def publish(self, event: str, payload: dict[str, Any]) -> None:
        if self._channel is None:
            self._channel = self._connect()
        self._channel.basic_publish(
            exchange=EXCHANGE,
            routing_key=f"order.{event}",
            body=msgpack.packb(payload),
            properties=pika.BasicProperties(content_type="application/msgpack", delivery_mode=2),
        )
