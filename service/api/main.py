"""ASGI entry point: `uvicorn service.api.main:app`."""

from service import logs
from service.api.app import create_app
from service.config import get_settings

logs.configure(get_settings().log_format)
app = create_app()
