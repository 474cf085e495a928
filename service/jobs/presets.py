"""The job presets a tenant sees: the shipped ones and its own saved ones (never another
tenant's), and resolving a job's ``preset`` against them at the door."""

from __future__ import annotations

from dataclasses import dataclass

from service.domain.errors import InputError
from service.domain.options import RenderOptions
from service.domain.presets import MAX_SAVED, Preset, check_name, preset_from_data, resolve
from service.ports import PresetStore


class ShippedPreset(InputError):
    """A save or delete named a shipped preset: those are read-only."""


@dataclass(frozen=True, slots=True)
class Found:
    name: str
    kind: str  # "shipped" or "saved"
    preset: Preset


class Presets:
    def __init__(self, shipped: dict[str, Preset], store: PresetStore | None) -> None:
        """``store`` None: shipped presets only (the one-process CLI)."""
        self.shipped = shipped
        self.store = store

    def _saved(self, tenant: str) -> dict[str, Preset]:
        if self.store is None:
            return {}
        return {
            name: Preset.model_validate_json(data)
            for name, data in sorted(self.store.saved(tenant).items())
        }

    def all(self, tenant: str) -> list[Found]:
        """The shipped presets, then the tenant's own, by name."""
        return [Found(n, "shipped", p) for n, p in self.shipped.items()] + [
            Found(n, "saved", p) for n, p in self._saved(tenant).items()
        ]

    def get(self, tenant: str, name: str) -> Found | None:
        if name in self.shipped:
            return Found(name, "shipped", self.shipped[name])
        data = self.store.get(tenant, name) if self.store is not None else None
        return Found(name, "saved", Preset.model_validate_json(data)) if data else None

    def put(self, tenant: str, name: str, data: object) -> Found:
        """Validate and save the tenant's preset ``name`` (new or replaced)."""
        check_name(name)
        if name in self.shipped:
            raise ShippedPreset(f"{name!r} is a shipped preset: save yours under another name")
        preset = preset_from_data(data)
        if self.store is None:
            raise InputError("presets are saved by the service, not the command line")
        stored = preset.model_dump_json(exclude_unset=True)  # what it sets, and only that
        if not self.store.put(tenant, name, stored, MAX_SAVED):
            raise InputError(f"a tenant may save at most {MAX_SAVED} presets: delete one first")
        return Found(name, "saved", Preset.model_validate_json(stored))

    def delete(self, tenant: str, name: str) -> bool:
        if name in self.shipped:
            raise ShippedPreset(f"{name!r} is a shipped preset and cannot be deleted")
        return self.store is not None and self.store.delete(tenant, name)

    def resolve(self, tenant: str, options: RenderOptions) -> RenderOptions:
        """The options with their preset's values under them, and each master's preset's
        values recorded (an InputError naming the preset when the tenant has no such one)."""

        def lookup(name: str) -> Preset | None:
            found = self.get(tenant, name)
            return None if found is None else found.preset

        return resolve(options, lookup, lambda: [f.name for f in self.all(tenant)])


def describe(found: Found) -> str:
    """One line for `narrate presets`: name, loudness and what it is."""
    loud = found.preset.loudness
    lufs = "default" if loud is None or loud.target_lufs is None else f"{loud.target_lufs:g}"
    peak = "default" if loud is None or loud.true_peak_dbtp is None else f"{loud.true_peak_dbtp:g}"
    figure = f"{lufs} LUFS {peak} dBTP"
    return f"{found.name:<16} {figure:<20} {found.preset.description}"
