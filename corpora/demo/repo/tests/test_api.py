import fakeredis
import pytest

from tracker.api import create_app
from tracker.cache import RedisCache
from tracker.store import IncidentStore


@pytest.fixture
def client(tmp_path, monkeypatch):
    monkeypatch.setenv("REDIS_URL", "redis://localhost:6379/15")
    store = IncidentStore(str(tmp_path / "tracker.db"))
    cache = RedisCache(fakeredis.FakeRedis(decode_responses=True), ttl=60)
    app = create_app(store=store, cache=cache)
    app.config["TESTING"] = True
    with app.test_client() as client:
        yield client
    store.close()


def test_open_and_fetch_incident(client):
    created = client.post("/incidents", json={"title": "Checkout latency", "severity": "sev2"})
    assert created.status_code == 201
    incident_id = created.get_json()["id"]

    fetched = client.get(f"/incidents/{incident_id}")
    assert fetched.status_code == 200
    assert fetched.get_json()["title"] == "Checkout latency"


def test_rejects_unknown_severity(client):
    response = client.post("/incidents", json={"title": "Disk full", "severity": "sev9"})
    assert response.status_code == 400


def test_resolve_removes_incident_from_open_list(client):
    incident_id = client.post("/incidents", json={"title": "5xx spike"}).get_json()["id"]
    resolved = client.post(f"/incidents/{incident_id}/resolve")
    assert resolved.get_json()["status"] == "resolved"
    assert client.get("/incidents").get_json() == []
