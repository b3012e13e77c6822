"""Order events on RabbitMQ."""
