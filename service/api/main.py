"""ASGI entry point: `uvicorn service.api.main:app`."""

import sys

from service import logs
from service.adapters.backend import require_shared
from service.api.app import create_app
from service.config import get_settings
from service.domain.errors import InputError

try:  # create_app(Settings(redis_url="memory://")) stays the fast tier's in-process API
    require_shared(get_settings(), "the API's workers")
except InputError as exc:
    sys.exit(f"narrate api: error: {exc}")
logs.configure(get_settings().log_format)
app = create_app()
