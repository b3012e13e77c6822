"""The HTTP API: read-through cache in front of the store, an event per new order."""

from __future__ import annotations

import csv
import io

from flask import Flask, abort, jsonify, request

from ordersvc import config
from ordersvc.cache import OrderCache
from ordersvc.queue.publisher import OrderPublisher
from ordersvc.store import OrderStore


def get_order(order_id: str):
    app = _services()
    order = app["cache"].get(order_id)
    if order is None:
        order = app["store"].get(order_id)
        if order is None:
            abort(404)
        app["cache"].put(order_id, order)
    return jsonify(order)


def create_order():
    app = _services()
    order = request.get_json(force=True)
    order_id = app["store"].create(order)
    app["publisher"].publish("created", dict(order, id=order_id))
    return jsonify({"id": order_id}), 201


def legacy_export():
    """CSV of recent orders for the old back office; kept until it is switched off."""
    rows = _services()["store"].list_recent(limit=500)
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=["id", "customer", "total"], extrasaction="ignore")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue(), 200, {"Content-Type": "text/csv"}


_SERVICES: dict = {}


def _services() -> dict:
    return _SERVICES


def create_app(settings: config.Settings | None = None) -> Flask:
    settings = settings or config.load()
    _SERVICES.update(
        cache=OrderCache(settings.redis_url, settings.cache_ttl),
        store=OrderStore(settings.database_url),
        publisher=OrderPublisher(settings.amqp_url),
    )
    app = Flask("ordersvc")
    app.add_url_rule("/orders/<order_id>", view_func=get_order, methods=["GET"])
    app.add_url_rule("/orders", view_func=create_order, methods=["POST"])
    app.add_url_rule("/export/orders.csv", view_func=legacy_export, methods=["GET"])
    return app


def main() -> None:
    create_app().run(host="0.0.0.0", port=8080)
