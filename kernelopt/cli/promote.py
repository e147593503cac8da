"""`kernelopt promote <run>`: manual promotion through the same gates the controller uses."""

from __future__ import annotations

from rich.markup import escape

from kernelopt.cli.display import make_console


def campaign_rules(store, campaign: str, console):  # type: ignore[no-untyped-def]
    """The gates' rules of the campaign that measured the run (its ``config.json``: repeats, noise floor,
    minimum improvement ...), else the defaults, said on the console."""
    from pydantic import ValidationError

    from kernelopt.controller import Rules

    recorded = (store.read_artifact_json(campaign, "config.json") or {}).get("rules")
    try:
        rules = Rules.model_validate(recorded) if recorded else None
    except ValidationError:
        rules = None
    if rules is None:
        console.print(f"gates: the default rules (campaign {campaign} recorded none)")
        return Rules()
    console.print(f"gates: campaign {campaign}'s rules (repeats {rules.repeats}, min_improvement "
                  f"{rules.min_improvement}, p95_tolerance {rules.p95_tolerance})")
    return rules


def promote_run(run_id: str, *, tracking_uri: str | None = None, force: bool = False) -> int:
    """Gate a candidate's runs against the champion; register and alias it when it passes."""
    from kernelopt.controller import gate, group_by_solution, is_champion, noise_floor
    from kernelopt.tracking import TrackingStore

    console = make_console()
    store = TrackingStore(tracking_uri, existing=True)
    campaign = store.candidate_campaign(run_id)
    state = store.load_state(campaign)
    groups = group_by_solution(state.candidates)
    mine = next((g for g in groups if run_id in g.run_ids), None)
    if mine is None:
        raise ValueError(f"run {run_id} is not a FINISHED candidate of campaign {campaign}")
    champ = store.get_champion(state.definition)
    if champ is not None and is_champion(mine, champ):  # the controller's rule: its run, or the same kernel again
        who = champ.run_id if champ.run_id in mine.run_ids else f"{run_id} (the solution of run {champ.run_id})"
        console.print(f"{who} is already the champion of {state.definition} (version {champ.version}): "
                      "nothing to do")
        return 0
    if not mine.full:  # the gates read the full sweep's figures: they printed 'latency: None ... gain None'
        console.print(f"[red]not promoted:[/red] run {run_id}'s solution was only gated (on "
                      f"{len(mine.gate.per_workload_ms) if mine.gate else 0} workload(s)); promotion needs its full "
                      "sweep, which a campaign runs for a gate passer that beats the bar (resume the campaign, or "
                      "give it in campaign.include)")
        return 1
    rules = campaign_rules(store, campaign, console)
    nf, _ = noise_floor(groups, rules.noise_floor_default)
    ok, evidence = gate(mine, state.champion, rules.model_copy(update={"repeats": 1}) if force else rules,
                        noise_floor=0.0 if force else nf)
    for ev in evidence:
        mark = "[green]ok[/green]" if ev.detail.get("ok", True) else "[red]fail[/red]"
        detail = ", ".join(f"{k} {v:.6g}" if isinstance(v, float) else f"{k} {v}"
                           for k, v in ev.detail.items() if k != "ok")
        value = f"{ev.value:.6g}" if isinstance(ev.value, float) else ev.value
        console.print(f"{mark} {ev.kind}: {escape(str(value))}" + (f" ({escape(detail)})" if detail else ""),
                      soft_wrap=True)
    if not ok:
        console.print("[red]not promoted: the gates did not pass[/red]")
        return 1
    target = mine.full[0].run_id if mine.full else run_id
    tags = {"manual": "true", "forced": str(force).lower(),
            "mean_latency_ms": str(mine.full_mean), "p95_latency_ms": str(mine.full_p95), "noise_floor": str(nf)}
    version = store.register(state.definition, target, tags)
    store.set_champion(state.definition, version)
    console.print(f"[bold green]promoted[/bold green] {target} as {state.definition} version {version} (alias champion)")
    return 0
