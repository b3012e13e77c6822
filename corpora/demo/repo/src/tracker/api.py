"""HTTP API: open, list, fetch and resolve incidents."""

from __future__ import annotations

from flask import Flask, abort, jsonify, request

from tracker.cache import RedisCache
from tracker.config import load_settings
from tracker.store import SEVERITIES, IncidentStore
from tracker.version import __version__

try:  # optional extra: pip install "incident-tracker[metrics]"
    from prometheus_client import CONTENT_TYPE_LATEST, Counter, generate_latest
except ImportError:  # pragma: no cover - metrics are optional
    generate_latest = None
    INCIDENTS_OPENED = None
else:
    INCIDENTS_OPENED = Counter(
        "tracker_incidents_opened_total", "Incidents opened", ["severity"]
    )


def create_app(
    store: IncidentStore | None = None, cache: RedisCache | None = None
) -> Flask:
    settings = load_settings()
    app = Flask(__name__)
    app.config["DEBUG"] = settings.debug
    store = store or IncidentStore(settings.db_path)
    cache = cache or RedisCache.from_settings(settings)

    @app.get("/healthz")
    def healthz():
        return jsonify(status="ok", version=__version__, cache=cache.ping())

    @app.get("/incidents")
    def list_incidents():
        limit = min(request.args.get("limit", settings.page_size, type=int), 200)
        return jsonify(store.list_open(limit))

    @app.post("/incidents")
    def open_incident():
        body = request.get_json(silent=True) or {}
        title = (body.get("title") or "").strip()
        severity = body.get("severity", "sev3")
        if not title or severity not in SEVERITIES:
            abort(400, description="a title and a valid severity are required")
        incident = store.create(title, severity)
        if INCIDENTS_OPENED is not None:
            INCIDENTS_OPENED.labels(severity=severity).inc()
        cache.set(incident)
        return jsonify(incident), 201

    @app.get("/incidents/<int:incident_id>")
    def get_incident(incident_id: int):
        incident = cache.get(incident_id)
        if incident is None:
            incident = store.get(incident_id) or abort(404)
            cache.set(incident)
        return jsonify(incident)

    @app.post("/incidents/<int:incident_id>/resolve")
    def resolve_incident(incident_id: int):
        incident = store.resolve(incident_id) or abort(404)
        cache.invalidate(incident_id)
        return jsonify(incident)

    if generate_latest is not None:

        @app.get("/metrics")
        def metrics():
            return generate_latest(), 200, {"Content-Type": CONTENT_TYPE_LATEST}

    return app


def main() -> None:
    create_app().run(host="0.0.0.0", port=8000)
