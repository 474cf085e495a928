"""Several masters from one render (options ``masters``). At the door, each master is resolved
into a PlannedMaster: the job's options with its preset's finishing fields and its own over them.
In finalize, each master is a run of its own (``Finish.for_master``) through the same finishing
stages (pipeline/stages.py): its subtitles, its mix at its loudness and its video under
masters/<name>/; ``report`` is what the manifest says of it.

What is the same is made once: masters whose picture is the same (the same burned-in subtitles,
or none) share one encode, each mux stream-copying it (or the source's picture); masters at the
same loudness target share one normalised narration.wav (a second name of it), and with the same
music levels too, one mix.wav (``Shared``)."""

from __future__ import annotations

from collections.abc import Callable

from service.domain.errors import InputError
from service.domain.notices import Notice, warning
from service.domain.options import MASTER_FIELDS, MasterLoudness, RenderOptions
from service.domain.presets import merged_values
from service.domain.spec import JobSpec
from service.pipeline.context import Finish
from service.pipeline.manifest import Loudness, ManifestMaster
from service.pipeline.results import PlannedMaster, is_artifact
from service.ports.finishing import Styles


def plan_masters(
    styles: Styles,
    spec: JobSpec,
    options: RenderOptions,
    loudness: Callable[[RenderOptions], MasterLoudness],
) -> tuple[list[PlannedMaster], list[Notice]]:
    """Each master of ``options`` (presets already resolved: ``preset_values`` recorded), and
    a warning for each preset field a master cannot take (synthesis is the job's)."""
    job = options.model_dump(mode="json", exclude_unset=True, exclude={"masters"})
    shown = options.model_dump(mode="json")
    planned, notes = [], []
    for i, master in enumerate(options.masters):
        if master.preset is not None and master.preset_values is None:
            raise InputError(f"options masters[{i}].preset: not resolved (Presets.resolve)")
        values = master.preset_values or {}
        finishing = {k: v for k, v in values.items() if k in MASTER_FIELDS}
        own = merged_values(merged_values(job, finishing), master.own())
        effective = RenderOptions.model_validate(own)
        style_spec = spec.rendered_with(effective)  # its style, and its captions over that
        try:
            style = styles.job_style(style_spec)
        except InputError as exc:
            where = f"options masters[{i}].style"
            loc = ("options", "masters", i, "style")
            raise InputError(f"{where}: {exc.message}", loc=loc) from None
        planned.append(
            PlannedMaster(
                name=master.name,
                preset=master.preset,
                options=effective,
                style=style,
                loudness=loudness(effective),
            )
        )
        skipped = [
            f"{k} {v!r}" for k, v in values.items() if k not in MASTER_FIELDS and shown.get(k) != v
        ]
        if skipped:
            said = (
                f"master {master.name}: preset {master.preset}'s {', '.join(skipped)} is not "
                "applied (synthesis and fit run once for every master, by the job's options)"
            )
            notes.append(warning("master.preset_partial", said))
    return planned, notes


def report(run: Finish) -> ManifestMaster:
    """What the manifest says of a master once its run is finished."""
    assert run.master is not None and run.plan.loudness is not None
    name, made, shown = run.master.name, run.sound, None
    if run.picture is not None:
        p = run.picture
        shown = "source" if p.encoding is None else "encoded" if p.first == name else p.first
    names = sorted(f"masters/{name}/{f.name}" for f in run.outdir.iterdir() if f.is_file())
    return ManifestMaster(
        name=name,
        preset=run.master.preset,
        burn_in=run.plan.options.burn_in and run.mux is not None,
        screen_text=run.plan.spec.shows_screen_text(run.plan.options),
        style=run.plan.style.applied,
        loudness=Loudness.measured(made.loud, run.plan.loudness),
        music=made.music.loudness if made.music is not None else None,
        picture=shown,
        artifacts=[n for n in names if is_artifact(n)],
    )
