"""ASGI entry point: `uvicorn service.api.main:app`."""

from service.api.app import create_app

app = create_app()
