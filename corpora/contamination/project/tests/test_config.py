import pytest

from ordersvc import config


def test_amqp_url_is_required(monkeypatch):
    monkeypatch.delenv("ORDERS_AMQP_URL", raising=False)
    with pytest.raises(KeyError):
        config.load()


def test_defaults(monkeypatch):
    monkeypatch.setenv("ORDERS_AMQP_URL", "amqp://localhost/")
    settings = config.load()
    assert settings.cache_ttl == 300
