"""The worker: consume `order.created` and hand each order to the fulfilment callback."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgpack
import pika

from ordersvc.queue.publisher import EXCHANGE

QUEUE = "orders.fulfilment"


def run_worker(amqp_url: str, handle: Callable[[dict[str, Any]], None]) -> None:
    connection = pika.BlockingConnection(pika.URLParameters(amqp_url))
    channel = connection.channel()
    channel.queue_declare(queue=QUEUE, durable=True)
    channel.queue_bind(queue=QUEUE, exchange=EXCHANGE, routing_key="order.created")

    def on_message(ch, method, _properties, body: bytes) -> None:
        handle(msgpack.unpackb(body))
        ch.basic_ack(delivery_tag=method.delivery_tag)

    channel.basic_qos(prefetch_count=10)
    channel.basic_consume(queue=QUEUE, on_message_callback=on_message)
    channel.start_consuming()
